package dbcopy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"strconv"
	"time"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"
)

// Sum is what Verify compares of one table in each database: how many
// rows it holds, and a SHA-256 over every row, in primary key order, in
// the canonical encoding of canonical.
type Sum struct {
	Rows int64
	Hash [sha256.Size]byte
}

// summer hashes a table's rows one by one.
type summer struct {
	cols []*schema.Column
	h    hash.Hash
	rows int64
	buf  []byte
}

func newSummer(cols []*schema.Column) *summer {
	return &summer{cols: cols, h: sha256.New()}
}

// add hashes one row, its values as either database handed them back.
func (s *summer) add(vals []any) error {
	s.buf = s.buf[:0]
	for i, col := range s.cols {
		v, err := convert(col, vals[i])
		if err != nil {
			return err
		}
		if s.buf, err = appendCanonical(s.buf, col, v); err != nil {
			return err
		}
	}
	s.rows++
	s.h.Write(binary.AppendUvarint(nil, uint64(len(s.buf))))
	s.h.Write(s.buf)
	return nil
}

func (s *summer) sum() Sum {
	out := Sum{Rows: s.rows}
	s.h.Sum(out.Hash[:0])
	return out
}

// appendCanonical appends v, converted for col, so that the same data
// reads the same from SQLite and PostgreSQL: NULL apart from every value;
// each value length-prefixed; times in UTC to the microsecond; booleans as
// t or f; JSON compacted with its object keys sorted, as PostgreSQL's
// jsonb reorders them and drops spaces.
func appendCanonical(b []byte, col *schema.Column, v any) ([]byte, error) {
	if v == nil {
		return append(b, 0), nil
	}
	var text []byte
	switch v := v.(type) {
	case bool:
		text = []byte(map[bool]string{true: "t", false: "f"}[v])
	case int64:
		text = strconv.AppendInt(nil, v, 10)
	case float64:
		text = binary.BigEndian.AppendUint64(nil, math.Float64bits(v))
	case time.Time:
		text = []byte(v.Format("2006-01-02T15:04:05.000000Z"))
	case []byte:
		text = v
	case string:
		text = []byte(v)
		if col.Type == field.TypeJSON {
			var err error
			if text, err = canonicalJSON(v); err != nil {
				return nil, fmt.Errorf("dbcopy: column %s holds JSON that does not parse: %w", col.Name, err)
			}
		}
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(text)))
	return append(b, text...), nil
}

// canonicalJSON re-encodes a JSON text: Go sorts object keys and writes no
// spaces.
func canonicalJSON(s string) ([]byte, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

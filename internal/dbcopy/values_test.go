package dbcopy

import (
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"

	"github.com/taskwire/taskwire/internal/ent/migrate"
)

// TestEveryColumnConverts: convert knows the type of every column of the
// schema, so a column of a new type fails here rather than in a copy.
func TestEveryColumnConverts(t *testing.T) {
	samples := map[field.Type]any{
		field.TypeBool: int64(1), field.TypeInt: int64(7), field.TypeInt64: int64(7), field.TypeUint32: int64(7),
		field.TypeTime: time.Now(), field.TypeString: "s", field.TypeEnum: "e", field.TypeJSON: `{"a":1}`, field.TypeBytes: []byte{1},
	}
	for _, tb := range migrate.Tables {
		for _, c := range tb.Columns {
			v, ok := samples[c.Type]
			if !ok {
				t.Errorf("%s.%s is of type %s, which this test has no sample of: add one, and make sure convert copies it", tb.Name, c.Name, c.Type)
				continue
			}
			if _, err := convert(c, v); err != nil {
				t.Errorf("convert(%s.%s, %v) = %v", tb.Name, c.Name, v, err)
			}
		}
	}
	if _, err := convert(&schema.Column{Name: "id", Type: field.TypeUUID}, "x"); err == nil || !strings.Contains(err.Error(), "does not convert yet") {
		t.Errorf("convert of a UUID column = %v, want an error saying it is not converted yet", err)
	}
}

// TestSameDataHashesTheSame: what SQLite hands back and what PostgreSQL
// hands back for the same row hash the same.
func TestSameDataHashesTheSame(t *testing.T) {
	cols := []*schema.Column{
		{Name: "flag", Type: field.TypeBool}, {Name: "at", Type: field.TypeTime}, {Name: "doc", Type: field.TypeJSON},
		{Name: "none", Type: field.TypeJSON, Nullable: true}, {Name: "null", Type: field.TypeJSON, Nullable: true}, {Name: "key", Type: field.TypeBytes},
	}
	at := time.Date(2026, 12, 5, 9, 30, 1, 123456789, time.FixedZone("CET", 3600))
	fromSQLite := []any{int64(1), at, `{"b":[1,2],"a":"x"}`, nil, "null", []byte("k")}
	fromPostgres := []any{true, at.Truncate(time.Microsecond).In(time.Local), `{"a": "x", "b": [1, 2]}`, nil, "null", []byte("k")}
	a, b := newSummer(cols), newSummer(cols)
	if err := a.add(fromSQLite); err != nil {
		t.Fatal(err)
	}
	if err := b.add(fromPostgres); err != nil {
		t.Fatal(err)
	}
	if a.sum() != b.sum() {
		t.Errorf("the same row from SQLite and PostgreSQL hashes differently")
	}
	c := newSummer(cols)
	c.add([]any{int64(1), at, `{"b":[1,2],"a":"x"}`, "null", "null", []byte("k")}) // JSON null for SQL NULL
	if c.sum() == a.sum() {
		t.Errorf("a JSON null hashes as SQL NULL does")
	}
}

package dbcopy

import (
	"fmt"
	"strconv"
	"time"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"
)

// timePrecision is PostgreSQL's: SQLite keeps the nanoseconds Go wrote,
// PostgreSQL microseconds, so times are cut to it before they are copied
// and before they are hashed.
const timePrecision = time.Microsecond

// convert turns a value read from either database into the Go value of
// its column's type, as ent declares it: SQLite holds booleans as
// integers and JSON as text, and may hand back a time it could not parse
// as text. nil (NULL) stays nil. A column type convert does not know is
// an error rather than a guess.
func convert(col *schema.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	var out any
	switch col.Type {
	case field.TypeBool:
		out = toBool(v)
	case field.TypeInt, field.TypeInt8, field.TypeInt16, field.TypeInt32, field.TypeInt64,
		field.TypeUint, field.TypeUint8, field.TypeUint16, field.TypeUint32, field.TypeUint64:
		out = toInt(v)
	case field.TypeFloat32, field.TypeFloat64:
		out = toFloat(v)
	case field.TypeTime:
		out = toTime(v)
	case field.TypeString, field.TypeEnum, field.TypeJSON:
		out = toString(v)
	case field.TypeBytes:
		out = toBytes(v)
	default:
		return nil, fmt.Errorf("dbcopy: column %s is of type %s, which the copy does not convert yet: add it to internal/dbcopy's convert", col.Name, col.Type)
	}
	if out == nil {
		return nil, fmt.Errorf("dbcopy: column %s holds %T %v, which is not a %s", col.Name, v, v, col.Type)
	}
	return out, nil
}

func toBool(v any) any {
	switch v := v.(type) {
	case bool:
		return v
	case int64:
		return v != 0
	case string:
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return nil
}

func toInt(v any) any {
	switch v := v.(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case string:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return nil
}

func toFloat(v any) any {
	switch v := v.(type) {
	case float64:
		return v
	case float32:
		return float64(v)
	case int64:
		return float64(v)
	}
	return nil
}

// sqliteTimes are the layouts SQLite's driver writes times in, for a
// time it handed back as text.
var sqliteTimes = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	time.RFC3339Nano,
}

func toTime(v any) any {
	var t time.Time
	switch v := v.(type) {
	case time.Time:
		t = v
	case string:
		var err error
		for _, layout := range sqliteTimes {
			if t, err = time.Parse(layout, v); err == nil {
				break
			}
		}
		if err != nil {
			return nil
		}
	default:
		return nil
	}
	return t.UTC().Truncate(timePrecision)
}

func toString(v any) any {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return nil
}

func toBytes(v any) any {
	switch v := v.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	}
	return nil
}

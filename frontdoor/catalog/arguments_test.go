package catalog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/taskwire/taskwire/frontdoor/catalog"
)

// TestEveryInputHasBounds: every number in every inputSchema has both a
// minimum and a maximum, and every timestamp is a string with format
// date-time, so that no value a caller sends gets past validation only to
// fail later (as an internal error) where the field cannot hold it.
func TestEveryInputHasBounds(t *testing.T) {
	for _, tool := range newCatalog(t).Tools() {
		var schema map[string]any
		if err := json.Unmarshal(tool.Def.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		checkBounds(t, tool.Def.Name, schema, tool.Method.Input())
	}
}

// checkBounds walks the object schema s of message md.
func checkBounds(t *testing.T, where string, s map[string]any, md protoreflect.MessageDescriptor) {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			t.Errorf("%s.%s is in the schema but not in %s", where, name, md.FullName())
			continue
		}
		ps := p.(map[string]any)
		if fd.IsList() {
			ps = ps["items"].(map[string]any)
		}
		at := where + "." + name
		switch typ := ps["type"]; {
		case typ == "integer" || typ == "number":
			if _, ok := ps["minimum"]; !ok {
				t.Errorf("%s is a number without a minimum", at)
			}
			if _, ok := ps["maximum"]; !ok {
				t.Errorf("%s is a number without a maximum", at)
			}
		case fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Timestamp":
			if typ != "string" || ps["format"] != "date-time" {
				t.Errorf("%s is a timestamp whose schema is %v, want a string with format date-time", at, ps)
			}
		case typ == "object":
			checkBounds(t, at, ps, fd.Message())
		}
	}
}

// TestIntegerBoundsDecode: each integer argument's bounds decode, and one
// past them is an ArgumentsError naming the argument, as far out as the
// issue's 2^62 and 2^63.
func TestIntegerBoundsDecode(t *testing.T) {
	for _, tool := range newCatalog(t).Tools() {
		var schema struct {
			Properties map[string]property `json:"properties"`
			Required   []string            `json:"required"`
		}
		if err := json.Unmarshal(tool.Def.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			if p.Type != "integer" || p.Minimum == nil || p.Maximum == nil {
				continue
			}
			args := func(v string) json.RawMessage {
				return json.RawMessage(fmt.Sprintf(`{%s"%s":%s}`, requiredArgs(schema.Properties, schema.Required, name), name, v))
			}
			for _, v := range []float64{*p.Minimum, *p.Maximum} {
				if _, err := tool.DecodeArguments(args(fmt.Sprint(int64(v)))); err != nil {
					t.Errorf("%s %s=%d (a bound) = %v, want it decoded", tool.Def.Name, name, int64(v), err)
				}
			}
			for _, v := range []string{fmt.Sprint(int64(*p.Minimum) - 1), fmt.Sprint(int64(*p.Maximum) + 1), "4611686018427387904", "9223372036854775808", "-9223372036854775809", "1e300"} {
				_, err := tool.DecodeArguments(args(v))
				var ae *catalog.ArgumentsError
				if !errors.As(err, &ae) || !strings.Contains(strings.Join(ae.Problems, " "), name+" must be") {
					t.Errorf("%s %s=%s = %v, want an ArgumentsError about %s", tool.Def.Name, name, v, err, name)
				}
			}
		}
	}
}

// property is what the integer tests read of an argument's schema.
type property struct {
	Type    string   `json:"type"`
	Enum    []string `json:"enum"`
	Minimum *float64 `json:"minimum"`
	Maximum *float64 `json:"maximum"`
}

// requiredArgs writes the required arguments other than skip with a valid
// value each, as members to start an object with.
func requiredArgs(props map[string]property, required []string, skip string) string {
	var b strings.Builder
	for _, r := range required {
		if r == skip {
			continue
		}
		switch p := props[r]; {
		case len(p.Enum) > 0:
			fmt.Fprintf(&b, "%q:%q,", r, p.Enum[0])
		case p.Type == "boolean":
			fmt.Fprintf(&b, "%q:true,", r)
		case p.Type == "integer":
			fmt.Fprintf(&b, "%q:%d,", r, int64(*p.Minimum))
		default:
			fmt.Fprintf(&b, "%q:\"T-1\",", r)
		}
	}
	return b.String()
}

// TestTimestampsDecode: a time the schema admits decodes, and one it does
// not — SQL, years past 9999, a second 60 — is an ArgumentsError.
func TestTimestampsDecode(t *testing.T) {
	list, _ := newCatalog(t).Lookup("tasks_list")
	for _, ok := range []string{"2026-12-01T00:00:00Z", "2026-12-01T10:30:00.123+01:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"} {
		if _, err := list.DecodeArguments(json.RawMessage(`{"updated_since":"` + ok + `"}`)); err != nil {
			t.Errorf("updated_since %s = %v, want it decoded", ok, err)
		}
	}
	for _, bad := range []string{"2020'; DROP TABLE tasks;--", "10000-01-01T00:00:00Z", "2026-12-31T23:59:60Z", "2026-12-01", "yesterday", ""} {
		_, err := list.DecodeArguments(json.RawMessage(`{"updated_since":"` + bad + `"}`))
		var ae *catalog.ArgumentsError
		if !errors.As(err, &ae) || !strings.Contains(ae.Problems[0], "updated_since must be a time in RFC 3339 form") {
			t.Errorf("updated_since %q = %v, want an ArgumentsError about updated_since", bad, err)
		}
		if ae != nil && strings.Contains(ae.Text(), "DROP") {
			t.Errorf("the problem echoes the value: %q", ae.Text())
		}
	}
}

// TestNulInArguments: a string holding U+0000, at any depth, is an
// ArgumentsError naming where; the text "\\u0000" (an escaped backslash,
// then "u0000") holds none and decodes.
func TestNulInArguments(t *testing.T) {
	c := newCatalog(t)
	for tool, tc := range map[string]struct{ bad, want, fine string }{
		"tasks_list":   {`{"label":"a\u0000b"}`, "label has U+0000 NULL at character 2", `{"label":"a\\u0000b"}`},
		"tasks_import": {`{"tasks":[{"title":"x"},{"title":"y","labels":["ok","\u0000"]}]}`, "tasks[1].labels[1] has U+0000 NULL at character 1", `{"tasks":[{"title":"\\u0000"}]}`},
	} {
		tl, _ := c.Lookup(tool)
		_, err := tl.DecodeArguments(json.RawMessage(tc.bad))
		var ae *catalog.ArgumentsError
		if !errors.As(err, &ae) || len(ae.Problems) != 1 || !strings.Contains(ae.Problems[0], tc.want) {
			t.Errorf("%s DecodeArguments(%s) = %v, want an ArgumentsError saying %q", tool, tc.bad, err, tc.want)
		}
		if _, err := tl.DecodeArguments(json.RawMessage(tc.fine)); err != nil {
			t.Errorf("%s DecodeArguments(%s) = %v, want it decoded", tool, tc.fine, err)
		}
	}
}

// FuzzDecodeArguments: whatever object a caller sends, a tool either
// decodes it or says what is wrong (ArgumentsError), or finds it is not an
// object; no other error, which the front door would answer as internal.
func FuzzDecodeArguments(f *testing.F) {
	for _, seed := range []string{
		`{"ref":"T-1","position":4611686018427387904}`,
		`{"id":9223372036854775808,"body":"x"}`,
		`{"updated_since":"2020'; DROP TABLE tasks;--"}`,
		`{"limit":"many"}`, `{"limit":1.5}`, `{"limit":1e2}`, `{"limit":-0}`,
		`{"tasks":[{"title":"a","labels":["x"],"lane":"doing"}]}`,
		`{"title":"a\u0000b"}`, `{"since":"2026-01-01T00:00:00Z","until":"0000-01-01T00:00:00Z"}`,
		`{"wip_limits":[{"lane":"doing","limit":2147483648}]}`,
	} {
		for i := range 3 {
			f.Add(i, seed)
		}
	}
	tools := newCatalog(f).Tools()
	f.Fuzz(func(t *testing.T, which int, args string) {
		tool := tools[int(uint(which)%uint(len(tools)))]
		_, err := tool.DecodeArguments(json.RawMessage(args))
		var ae *catalog.ArgumentsError
		if err != nil && !errors.As(err, &ae) && !errors.Is(err, catalog.ErrNotObject) {
			t.Errorf("%s DecodeArguments(%s) = %v, want a request, an ArgumentsError or ErrNotObject", tool.Def.Name, args, err)
		}
	})
}

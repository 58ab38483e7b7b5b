package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// writtenSchema checks the inputSchema a tool states by hand (the
// input_schema option) against its request message md, and returns it
// compacted. It must be a JSON object schema of type object, and every
// property at its top level must name a field of md that a model may set,
// by its name or its JSON name: protojson reads the arguments into md, so
// a property without a field would be refused on every call. What the
// schema says inside a property is not compared with the field's type;
// arguments that pass the schema but not protojson are still refused,
// with a sentence the caller can act on (DecodeArguments).
func writtenSchema(md protoreflect.MessageDescriptor, raw string) (json.RawMessage, error) {
	var doc struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, fmt.Errorf("input_schema is not a JSON object: %w", err)
	}
	if doc.Type != "object" {
		return nil, fmt.Errorf(`input_schema must have "type": "object" at its root, as MCP requires of every inputSchema`)
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Properties)) {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			fd = md.Fields().ByJSONName(name)
		}
		if fd == nil || fieldOpt(fd).GetConfirmation() || shapeName(fd) != "" {
			return nil, fmt.Errorf("input_schema property %q is no field of %s a model may set: name one of %s", name, md.FullName(), strings.Join(settable(md), ", "))
		}
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// settable lists the JSON names of the fields of md a model may set.
func settable(md protoreflect.MessageDescriptor) []string {
	var out []string
	fields := md.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); !fieldOpt(fd).GetConfirmation() && shapeName(fd) == "" {
			out = append(out, fd.JSONName())
		}
	}
	return out
}

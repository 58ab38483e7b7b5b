package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// ErrNotObject: the arguments are not a JSON object. Unlike arguments that
// do not fit the inputSchema, such a request fails the CallToolRequest
// schema itself, which the protocol answers with -32602.
var ErrNotObject = errors.New("arguments must be a JSON object")

func compile(name string, schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validTimestamp})
	url := "taskwire:tools/" + name + "/input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

var printer = message.NewPrinter(language.English)

// DecodeArguments checks args (a JSON object, or empty for none) against the
// tool's inputSchema and turns it into the RPC's request message. Arguments
// that do not fit are an *ArgumentsError; arguments that are not an object
// are ErrNotObject.
func (t *Tool) DecodeArguments(args json.RawMessage) (proto.Message, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, fmt.Errorf("%w: they are not valid JSON", ErrNotObject)
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil, ErrNotObject
	}
	if err := t.input.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &ArgumentsError{Tool: t.Def.Name, Problems: problems(ve)}
		}
		return nil, err
	}
	if p := nulProblems(args, inst); len(p) > 0 {
		return nil, &ArgumentsError{Tool: t.Def.Name, Problems: p}
	}
	toEnumFullNames(inst, t.Method.Input())
	raw, err := json.Marshal(inst)
	if err != nil {
		return nil, err
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(t.Method.Input().FullName())
	if err != nil {
		return nil, err
	}
	msg := mt.New().Interface()
	if err := protojson.Unmarshal(raw, msg); err != nil {
		// The schema admits only what protojson reads (the catalogue's
		// tests hold it to that), so this is a gap in the schema; the
		// value is still the caller's to fix, and theirs to see.
		return nil, &ArgumentsError{Tool: t.Def.Name, Problems: []string{
			"the arguments do not fit the tool's fields: " + strings.TrimPrefix(err.Error(), "proto: "),
		}}
	}
	return msg, nil
}

// escapedNul is how U+0000 appears in JSON text: a string cannot hold it
// raw.
var escapedNul = []byte(`\u0000`)

// nulProblems names the strings of the arguments inst, decoded from args,
// that hold U+0000: no text means it, and PostgreSQL cannot store it, so
// every argument refuses it. Arguments whose text has no escaped U+0000
// hold none, so it walks inst only when args has one: not on every call.
func nulProblems(args json.RawMessage, inst any) []string {
	if !bytes.Contains(args, escapedNul) {
		return nil
	}
	return nulStrings(nil, inst)
}

// nulStrings names the strings in v, at loc, that hold U+0000.
func nulStrings(loc []string, v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if i := strings.IndexByte(v, 0); i >= 0 {
			out = append(out, fmt.Sprintf("%s has U+0000 NULL at character %d: no argument may hold it; remove it", place(loc), utf8.RuneCountInString(v[:i])+1))
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, nulStrings(append(slices.Clone(loc), k), v[k])...)
		}
	case []any:
		for i, x := range v {
			out = append(out, nulStrings(append(slices.Clone(loc), strconv.Itoa(i)), x)...)
		}
	}
	return out
}

// validTimestamp is the date-time format as protojson reads a
// google.protobuf.Timestamp (RFC 3339, years 1 to 9999), so that a time
// the schema admits always decodes.
func validTimestamp(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := protojson.Unmarshal(raw, &timestamppb.Timestamp{}); err != nil {
		return errors.New("not an RFC 3339 time between the years 1 and 9999")
	}
	return nil
}

// NewResponse returns an empty response message of the tool's RPC.
func (t *Tool) NewResponse() (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(t.Method.Output().FullName())
	if err != nil {
		return nil, err
	}
	return mt.New().Interface(), nil
}

// EncodeResult turns the RPC's response into the tool's structuredContent,
// which matches the tool's outputSchema: without the fields the front door
// reads itself (ToolOutput, InputRequired), and nil for a tool that has no
// outputSchema.
func (t *Tool) EncodeResult(msg proto.Message) (json.RawMessage, error) {
	if t.Def.OutputSchema == nil {
		return nil, nil
	}
	out, err := appendMessage(make([]byte, 0, 1024), msg.ProtoReflect(), t.always, t.OutputField, t.InputRequiredField)
	if errors.Is(err, errIndirect) {
		return t.encodeResultSlow(msg)
	}
	return out, err
}

// encodeResultSlow is EncodeResult through protojson: what appendMessage
// does not write itself, and the reference its tests compare it with.
func (t *Tool) encodeResultSlow(msg proto.Message) (json.RawMessage, error) {
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(msg)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	for _, fd := range []protoreflect.FieldDescriptor{t.OutputField, t.InputRequiredField} {
		if fd != nil {
			delete(v, string(fd.Name()))
		}
	}
	for _, fd := range t.always {
		if _, ok := v[string(fd.Name())]; !ok {
			v[string(fd.Name())] = zeroJSON(fd)
		}
	}
	toEnumShortNames(v, msg.ProtoReflect().Descriptor())
	return json.Marshal(v)
}

// zeroJSON is how an empty field the result always holds is written,
// which protojson leaves out: as appendMessage writes it (a 64-bit
// integer quoted, as protojson quotes it), so both paths agree.
func zeroJSON(fd protoreflect.FieldDescriptor) any {
	if fd.IsList() {
		return []any{}
	}
	if b, err := appendValue(nil, fd, fd.Default()); err == nil {
		return json.RawMessage(b)
	}
	return json.Number("0") // a float, which only protojson writes
}

// toEnumFullNames rewrites enum values in v, shaped like message md, from
// short names to the names protojson reads.
func toEnumFullNames(v any, md protoreflect.MessageDescriptor) {
	walkEnums(v, md, func(ed protoreflect.EnumDescriptor, s string) string {
		return enumPrefix(ed) + strings.ToUpper(s)
	})
}

// toEnumShortNames rewrites enum values in v, shaped like message md, from
// protojson's names to short names.
func toEnumShortNames(v any, md protoreflect.MessageDescriptor) {
	walkEnums(v, md, func(ed protoreflect.EnumDescriptor, s string) string {
		if ev := ed.Values().ByName(protoreflect.Name(s)); ev != nil {
			return EnumShortName(ed, ev)
		}
		return s
	})
}

func walkEnums(v any, md protoreflect.MessageDescriptor, rename func(protoreflect.EnumDescriptor, string) string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, fv := range m {
		fd := md.Fields().ByName(protoreflect.Name(k))
		if fd == nil {
			fd = md.Fields().ByJSONName(k)
		}
		if fd == nil {
			continue
		}
		one := func(x any) any {
			switch {
			case fd.Enum() != nil:
				if s, ok := x.(string); ok {
					return rename(fd.Enum(), s)
				}
			case fd.Message() != nil && fd.Message().FullName() != timestampName:
				walkEnums(x, fd.Message(), rename)
			}
			return x
		}
		if list, ok := fv.([]any); ok && fd.IsList() {
			for i := range list {
				list[i] = one(list[i])
			}
			continue
		}
		m[k] = one(fv)
	}
}

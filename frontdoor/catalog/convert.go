package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// ArgumentsError reports tool arguments that do not fit the tool's
// inputSchema. Problems lists each one as "<location>: <what is wrong>".
type ArgumentsError struct {
	Tool     string
	Problems []string
}

func (e *ArgumentsError) Error() string {
	return fmt.Sprintf("invalid arguments for tool %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

func compile(name string, schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "taskwire:tools/" + name + "/input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

var printer = message.NewPrinter(language.English)

// DecodeArguments checks args (a JSON object, or empty for none) against the
// tool's inputSchema and turns it into the RPC's request message.
func (t *Tool) DecodeArguments(args json.RawMessage) (proto.Message, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, &ArgumentsError{Tool: t.Def.Name, Problems: []string{"arguments are not valid JSON"}}
	}
	if err := t.input.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &ArgumentsError{Tool: t.Def.Name, Problems: problems(ve)}
		}
		return nil, err
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
		// The schema admits only what protojson reads, so this is a bug.
		return nil, fmt.Errorf("catalog: %s: arguments passed the schema but not protojson: %w", t.Def.Name, err)
	}
	return msg, nil
}

// problems flattens a validation error to its leaves, each with the place in
// the arguments it concerns.
func problems(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "arguments"
			if len(e.InstanceLocation) > 0 {
				loc = strings.Join(e.InstanceLocation, ".")
			}
			out = append(out, loc+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
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
	out, err := appendMessage(make([]byte, 0, 1024), msg.ProtoReflect(), t.OutputField, t.InputRequiredField)
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
	toEnumShortNames(v, msg.ProtoReflect().Descriptor())
	return json.Marshal(v)
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

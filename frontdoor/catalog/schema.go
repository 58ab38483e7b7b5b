package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// obj is a JSON object that keeps its keys in insertion order, so a schema
// lists properties in the order the contract declares them.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

const timestampName = "google.protobuf.Timestamp"

// schemaGen writes JSON Schema 2020-12 for protobuf messages as the front
// door reads and writes them: proto field names, enums as their short
// lower-case names, timestamps as RFC 3339 strings.
type schemaGen struct {
	docs  comments
	stack []protoreflect.FullName
}

// object returns the schema of message md. input selects the request view,
// which honours the (taskwire.mcp.v1.field) constraints.
func (g *schemaGen) object(md protoreflect.MessageDescriptor, input bool) (obj, error) {
	for _, n := range g.stack {
		if n == md.FullName() {
			return nil, fmt.Errorf("message %s is recursive", n)
		}
	}
	g.stack = append(g.stack, md.FullName())
	defer func() { g.stack = g.stack[:len(g.stack)-1] }()

	s := obj{{"type", "object"}}
	var props obj
	var required []string
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if input && fieldOpt(fd).GetConfirmation() {
			continue // the front door's to fill, not the model's
		}
		if len(g.stack) == 1 && shapeName(fd) != "" {
			continue // the front door's to fill or read (shapes.go)
		}
		fs, err := g.field(fd, input)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.Name(), err)
		}
		props = append(props, kv{string(fd.Name()), fs})
		// A request's required arguments; a response's fields that are
		// always in the result (alwaysFields), at its top level only.
		if fieldOpt(fd).GetRequired() && (input || len(g.stack) == 1) {
			required = append(required, string(fd.Name()))
		}
	}
	if len(props) > 0 {
		s = append(s, kv{"properties", props})
	}
	if len(required) > 0 {
		s = append(s, kv{"required", required})
	}
	return append(s, kv{"additionalProperties", false}), nil
}

// inputSchema returns the inputSchema derived from request md.
func (g *schemaGen) inputSchema(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	o, err := g.object(md, true)
	if err != nil {
		return nil, err
	}
	return json.Marshal(o)
}

func fieldOpt(fd protoreflect.FieldDescriptor) *mcpv1.Field {
	f, _ := proto.GetExtension(fd.Options(), mcpv1.E_Field).(*mcpv1.Field)
	return f
}

func (g *schemaGen) field(fd protoreflect.FieldDescriptor, input bool) (obj, error) {
	if fd.IsMap() {
		return nil, fmt.Errorf("map fields are not supported")
	}
	item, err := g.single(fd, input)
	if err != nil {
		return nil, err
	}
	opt := fieldOpt(fd)
	if input {
		if item, err = bounds(item, fd, opt); err != nil {
			return nil, err
		}
	}
	if !fd.IsList() {
		return paramHeader(g.describe(item, fd), opt, input)
	}
	s := obj{{"type", "array"}, {"items", item}}
	if input && opt != nil {
		if opt.MinItems != nil {
			s = append(s, kv{"minItems", opt.GetMinItems()})
		}
		if opt.MaxItems != nil {
			s = append(s, kv{"maxItems", opt.GetMaxItems()})
		}
	}
	return paramHeader(g.describe(s, fd), opt, input)
}

// paramHeader adds the field's x-mcp-header, if it has one, to its schema
// s. Whether the field may have one (a single string, integer or boolean,
// reached through properties alone) is mcp.ParamHeaders' to say, on the
// whole inputSchema; only that a response has none is said here, since
// a header mirrors an argument.
func paramHeader(s obj, opt *mcpv1.Field, input bool) (obj, error) {
	h := opt.GetMcpHeader()
	switch {
	case h == "":
		return s, nil
	case !input:
		return nil, fmt.Errorf("mcp_header names the header of an argument: a response field cannot have one")
	}
	return append(s, kv{mcp.KeywordParamHeader, h}), nil
}

// kindRanges are the values each integer kind holds. Every integer of a
// request gets both bounds in its inputSchema: a number the schema admits
// but the field cannot hold would fail only later, in protojson, after
// validation has said the arguments are fine.
var kindRanges = map[protoreflect.Kind][2]int64{
	protoreflect.Int32Kind:    {math.MinInt32, math.MaxInt32},
	protoreflect.Sint32Kind:   {math.MinInt32, math.MaxInt32},
	protoreflect.Sfixed32Kind: {math.MinInt32, math.MaxInt32},
	protoreflect.Uint32Kind:   {0, math.MaxUint32},
	protoreflect.Fixed32Kind:  {0, math.MaxUint32},
}

// bounds adds to the schema of one value of request field fd its range (an
// integer's, from opt within its kind's) and length (a string's).
func bounds(item obj, fd protoreflect.FieldDescriptor, opt *mcpv1.Field) (obj, error) {
	if opt == nil {
		opt = &mcpv1.Field{}
	}
	if r, ok := kindRanges[fd.Kind()]; ok {
		lo, hi := r[0], r[1]
		if opt.Minimum != nil {
			lo = opt.GetMinimum()
		}
		if opt.Maximum != nil {
			hi = opt.GetMaximum()
		}
		if lo < r[0] || hi > r[1] || lo > hi {
			return nil, fmt.Errorf("range %d to %d does not fit in %s (%d to %d)", lo, hi, fd.Kind(), r[0], r[1])
		}
		item = slices.DeleteFunc(item, func(p kv) bool { return p.k == "minimum" })
		return append(item, kv{"minimum", lo}, kv{"maximum", hi}), nil
	}
	if opt.Minimum != nil || opt.Maximum != nil {
		return nil, fmt.Errorf("minimum and maximum apply to 32-bit integers only, not %s", fd.Kind())
	}
	if opt.MaxLength != nil {
		if fd.Kind() != protoreflect.StringKind {
			return nil, fmt.Errorf("max_length applies to strings only, not %s", fd.Kind())
		}
		item = append(item, kv{"maxLength", opt.GetMaxLength()})
	}
	return item, nil
}

// describe adds the field's comment, and for enums what each value means.
func (g *schemaGen) describe(s obj, fd protoreflect.FieldDescriptor) obj {
	text := g.docs[fd.FullName()]
	if ed := fd.Enum(); ed != nil {
		var parts []string
		values := ed.Values()
		for i := range values.Len() {
			v := values.Get(i)
			if v.Number() == 0 {
				continue
			}
			if doc := g.docs[ed.FullName().Append(v.Name())]; doc != "" {
				parts = append(parts, EnumShortName(ed, v)+": "+strings.TrimSuffix(doc, "."))
			}
		}
		if len(parts) > 0 {
			text = strings.TrimSpace(text + " (" + strings.Join(parts, "; ") + ".)")
		}
	}
	if text == "" {
		return s
	}
	return append(obj{{"description", text}}, s...)
}

func (g *schemaGen) single(fd protoreflect.FieldDescriptor, input bool) (obj, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return obj{{"type", "string"}}, nil
	case protoreflect.BoolKind:
		return obj{{"type", "boolean"}}, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return obj{{"type", "integer"}}, nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return obj{{"type", "integer"}, {"minimum", 0}}, nil // bounds widens it to the field's range
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return obj{{"type", "number"}}, nil
	case protoreflect.EnumKind:
		return obj{{"type", "string"}, {"enum", enumNames(fd.Enum())}}, nil
	case protoreflect.MessageKind:
		if fd.Message().FullName() == timestampName {
			return obj{{"type", "string"}, {"format", "date-time"}}, nil
		}
		if shapeName(fd) != "" {
			return nil, fmt.Errorf("%s can only be a field of the request or response itself", fd.Message().FullName())
		}
		if strings.HasPrefix(string(fd.Message().FullName()), "google.protobuf.") {
			return nil, fmt.Errorf("well-known type %s is not supported", fd.Message().FullName())
		}
		return g.object(fd.Message(), input)
	}
	// 64-bit integers travel as strings in protobuf JSON, which would give
	// a model two spellings of one number: keep them out of tool contracts.
	return nil, fmt.Errorf("field kind %s is not supported", fd.Kind())
}

// enumNames lists the short names of an enum's values, without the zero
// value, which means "not set".
func enumNames(ed protoreflect.EnumDescriptor) []string {
	var names []string
	values := ed.Values()
	for i := range values.Len() {
		if v := values.Get(i); v.Number() != 0 {
			names = append(names, EnumShortName(ed, v))
		}
	}
	return names
}

// EnumShortName is how a value appears to a model: LANE_BACKLOG of enum Lane
// becomes "backlog".
func EnumShortName(ed protoreflect.EnumDescriptor, v protoreflect.EnumValueDescriptor) string {
	return strings.ToLower(strings.TrimPrefix(string(v.Name()), enumPrefix(ed)))
}

// enumPrefix is the upper snake case of the enum's name plus "_", the
// prefix buf's lint rules require of every value.
func enumPrefix(ed protoreflect.EnumDescriptor) string {
	var b strings.Builder
	for i, r := range string(ed.Name()) {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String()) + "_"
}

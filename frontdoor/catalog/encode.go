package catalog

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// The structuredContent of a result is written straight from the
// response message by appendMessage: the same JSON as protojson with proto
// field names, then enum values shortened to the names the outputSchema
// lists (see encodeResultSlow, which does exactly that in three passes
// over the text and which it replaces on the path of every call). Going
// through protojson, a JSON decoder and encoding/json again was most of
// the front door's CPU for a page of tasks. What it does not write the way
// protojson does (floats, bytes, maps, well-known types besides Timestamp,
// invalid UTF-8) makes it hand the message to encodeResultSlow instead;
// TestDirectEncodingMatchesProtojson holds the two to the same JSON for
// every tool, and fails when a tool's result needs the slow path.

// errIndirect: the message holds something only encodeResultSlow writes.
var errIndirect = errors.New("catalog: message needs protojson")

// appendMessage writes m as a JSON object, in field order, leaving out
// unset fields (but those in always, written empty) and those in skip.
func appendMessage(b []byte, m protoreflect.Message, always []protoreflect.FieldDescriptor, skip ...protoreflect.FieldDescriptor) ([]byte, error) {
	fields := m.Descriptor().Fields()
	b = append(b, '{')
	first := true
	for i := range fields.Len() {
		fd := fields.Get(i)
		if (!m.Has(fd) && !skipped(fd, always)) || skipped(fd, skip) {
			continue
		}
		if fd.IsMap() {
			return nil, errIndirect
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, fd.Name()...)
		b = append(b, '"', ':')
		var err error
		if fd.IsList() {
			b, err = appendList(b, fd, m.Get(fd).List())
		} else {
			b, err = appendValue(b, fd, m.Get(fd))
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func skipped(fd protoreflect.FieldDescriptor, skip []protoreflect.FieldDescriptor) bool {
	for _, s := range skip {
		if s == fd {
			return true
		}
	}
	return false
}

func appendList(b []byte, fd protoreflect.FieldDescriptor, l protoreflect.List) ([]byte, error) {
	b = append(b, '[')
	for i := range l.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, fd, l.Get(i)); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendValue writes one value of field fd.
func appendValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// protojson quotes 64-bit integers, which JavaScript cannot hold.
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), nil
	case protoreflect.StringKind:
		return appendString(b, v.String())
	case protoreflect.EnumKind:
		ed := fd.Enum()
		if ed.FullName() == "google.protobuf.NullValue" {
			return nil, errIndirect
		}
		ev := ed.Values().ByNumber(v.Enum())
		if ev == nil { // a number this build does not name, as protojson writes it
			return strconv.AppendInt(b, int64(v.Enum()), 10), nil
		}
		return appendString(b, shortName(ed, ev))
	case protoreflect.MessageKind:
		md := fd.Message()
		if md.FullName() == timestampName {
			return appendTimestamp(b, v.Message())
		}
		if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			return nil, errIndirect
		}
		return appendMessage(b, v.Message(), nil)
	}
	return nil, errIndirect // floats, bytes, groups
}

// shortNames caches EnumShortName, which builds the enum's prefix.
var shortNames sync.Map // protoreflect.FullName of the value → string

func shortName(ed protoreflect.EnumDescriptor, ev protoreflect.EnumValueDescriptor) string {
	if s, ok := shortNames.Load(ev.FullName()); ok {
		return s.(string)
	}
	s := EnumShortName(ed, ev)
	shortNames.Store(ev.FullName(), s)
	return s
}

// The range of google.protobuf.Timestamp: years 1 to 9999.
const (
	minTimestamp = -62135596800
	maxTimestamp = 253402300799
)

// appendTimestamp writes a Timestamp as protojson does: RFC 3339 in UTC,
// with 0, 3, 6 or 9 digits of fraction.
func appendTimestamp(b []byte, m protoreflect.Message) ([]byte, error) {
	fields := m.Descriptor().Fields()
	secs, nanos := m.Get(fields.ByNumber(1)).Int(), m.Get(fields.ByNumber(2)).Int()
	if secs < minTimestamp || secs > maxTimestamp || nanos < 0 || nanos >= 1e9 {
		return nil, errIndirect // protojson says what is wrong
	}
	x := time.Unix(secs, nanos).UTC().Format("2006-01-02T15:04:05.000000000")
	x = strings.TrimSuffix(x, "000")
	x = strings.TrimSuffix(x, "000")
	x = strings.TrimSuffix(x, ".000")
	b = append(b, '"')
	b = append(b, x...)
	return append(b, 'Z', '"'), nil
}

// appendString writes s as a JSON string, as encoding/json does; a string
// protojson refuses (invalid UTF-8) takes the slow path.
func appendString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, errIndirect // protojson refuses it
	}
	return jsonrpc.AppendString(b, s), nil
}

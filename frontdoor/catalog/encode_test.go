package catalog

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// TestDirectEncodingMatchesProtojson: for every tool, results filled at
// random (every field, nested messages, lists, enum numbers with and
// without names, timestamps, text with quotes, control characters and
// non-ASCII) come out of EncodeResult as the same JSON as through
// protojson; and no tool's result needs protojson on the way.
func TestDirectEncodingMatchesProtojson(t *testing.T) {
	cat, err := New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 1))
	for _, tool := range cat.Tools() {
		if tool.Def.OutputSchema == nil {
			continue
		}
		for round := range 20 {
			msg, err := tool.NewResponse()
			if err != nil {
				t.Fatal(err)
			}
			fill(rng, msg.ProtoReflect(), 0, round%4 == 0)
			direct, err := appendMessage(nil, msg.ProtoReflect(), tool.always, tool.OutputField, tool.InputRequiredField)
			if errors.Is(err, errIndirect) {
				t.Fatalf("%s: its result needs protojson (%v): let appendValue write what it holds", tool.Def.Name, err)
			}
			if err != nil {
				t.Fatalf("%s: %v", tool.Def.Name, err)
			}
			slow, err := tool.encodeResultSlow(msg)
			if err != nil {
				t.Fatalf("%s: through protojson: %v", tool.Def.Name, err)
			}
			var a, b any
			if err := json.Unmarshal(direct, &a); err != nil {
				t.Fatalf("%s: direct encoding is not JSON: %v\n%s", tool.Def.Name, err, direct)
			}
			if err := json.Unmarshal(slow, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: direct encoding\n%s\ndiffers from protojson's\n%s", tool.Def.Name, direct, slow)
			}
		}
	}
}

// TestListsAlwaysHaveItems: a list tool's result has items, [] when the
// page is empty, and next_cursor, "" on the last page, on both encoding
// paths; its outputSchema requires both, so a client may rely on them.
func TestListsAlwaysHaveItems(t *testing.T) {
	cat, err := New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatal(err)
	}
	lists := 0
	for _, tool := range cat.Tools() {
		if tool.Method.Output().Fields().ByName("next_cursor") == nil {
			continue
		}
		lists++
		var schema struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.Def.OutputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(schema.Required, "items") || !slices.Contains(schema.Required, "next_cursor") {
			t.Errorf("%s outputSchema requires %q, want items and next_cursor", tool.Def.Name, schema.Required)
		}
		empty, err := tool.NewResponse()
		if err != nil {
			t.Fatal(err)
		}
		for name, encode := range map[string]func(proto.Message) (json.RawMessage, error){
			"direct": tool.EncodeResult, "protojson": tool.encodeResultSlow,
		} {
			raw, err := encode(empty)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if items, ok := got["items"].([]any); !ok || len(items) != 0 || got["next_cursor"] != "" {
				t.Errorf("%s empty result (%s) = %s, want items [] and next_cursor \"\"", tool.Def.Name, name, raw)
			}
			MustMatchOutputSchema(t, tool, raw)
		}
	}
	if lists != 7 {
		t.Errorf("found %d list tools, want the 7 docs/tools.md names", lists)
	}
}

// TestZeroJSONIsProtojsons: a field the result always holds is written
// empty as protojson writes its zero value when told to emit it, for
// every kind of scalar a response may mark required (strings, bools,
// 32- and 64-bit integers, floats).
func TestZeroJSONIsProtojsons(t *testing.T) {
	for _, msg := range []proto.Message{&adminv1.Member{}, &taskwirev1.RateLimit{}, &taskwirev1.Board{}} {
		raw, err := protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		fields := msg.ProtoReflect().Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.Enum() != nil || fd.Message() != nil || fd.HasPresence() {
				continue
			}
			got, err := json.Marshal(zeroJSON(fd))
			if err != nil {
				t.Fatal(err)
			}
			if w := want[string(fd.Name())]; string(got) != string(w) {
				t.Errorf("zeroJSON(%s) = %s, want %s as protojson writes it", fd.FullName(), got, w)
			}
		}
	}
}

// What appendMessage leaves to protojson still comes out right.
func TestEncodeResultFallsBackToProtojson(t *testing.T) {
	cat, err := New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatal(err)
	}
	get, _ := cat.Lookup("tasks_get")
	resp := &taskwirev1.GetTaskResponse{Task: &taskwirev1.Task{Ref: "T-1", Title: "bad \xff byte"}}
	if _, err := get.EncodeResult(resp); err == nil {
		t.Error("EncodeResult of a title with invalid UTF-8 succeeded, want protojson's refusal")
	}
	resp.Task.Title = "fine"
	resp.Task.CreatedAt = &timestamppb.Timestamp{Seconds: maxTimestamp + 1}
	if _, err := get.EncodeResult(resp); err == nil {
		t.Error("EncodeResult of a timestamp past year 9999 succeeded, want protojson's refusal")
	}
}

var texts = []string{"", "plain", `quote " and \ backslash`, "line\nbreak\ttab\r", "ctl \x01\x1f \b \f \x7f", "naïve 日本 🚀", "sep \u2028 \u2029", "<html>&amp;"}

// fill sets every field of m to a random value; sparse leaves some unset.
func fill(rng *rand.Rand, m protoreflect.Message, depth int, sparse bool) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if (sparse && rng.IntN(3) == 0) || fd.ContainingOneof() != nil && rng.IntN(2) == 0 {
			continue
		}
		if fd.Message() != nil && depth > 4 {
			continue
		}
		switch {
		case fd.IsMap():
			continue
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range rng.IntN(4) {
				if fd.Message() != nil {
					e := l.NewElement()
					fillValue(rng, e.Message(), fd, depth)
					l.Append(e)
				} else {
					l.Append(scalar(rng, fd))
				}
			}
		case fd.Message() != nil:
			fillValue(rng, m.Mutable(fd).Message(), fd, depth)
		default:
			m.Set(fd, scalar(rng, fd))
		}
	}
}

func fillValue(rng *rand.Rand, m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	if fd.Message().FullName() == timestampName {
		grain := []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second}[rng.IntN(4)]
		ts := timestamppb.New(time.Now().Add(-time.Duration(rng.Int64N(1e18))).Truncate(grain))
		proto.Merge(m.Interface(), ts)
		return
	}
	fill(rng, m, depth+1, rng.IntN(2) == 0)
}

func scalar(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 0)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(rng.Int32() - rng.Int32())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(rng.Uint32())
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(rng.Int64() - rng.Int64())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(rng.Uint64())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(texts[rng.IntN(len(texts))])
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if rng.IntN(8) == 0 {
			return protoreflect.ValueOfEnum(999) // a number without a name
		}
		return protoreflect.ValueOfEnum(vals.Get(rng.IntN(vals.Len())).Number())
	}
	return fd.Default()
}

package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in     string
		kind   Kind
		code   int    // 0 when Decode succeeds
		id     string // the id kept, "" for none
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, Request, 0, `1`, "tools/list"},
		{`{"jsonrpc":"2.0","id":"a-1","method":"x"}`, Request, 0, `"a-1"`, "x"},
		{`{"jsonrpc":"2.0","id":-7,"method":""}`, Request, 0, `-7`, ""},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"x"}`, Request, 0, `123456789012345678901234567890`, "x"},
		{` { "jsonrpc" : "2.0" , "id" : 5 , "method" : "x" } `, Request, 0, `5`, "x"},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, Notification, 0, "", "notifications/x"},
		{`{"jsonrpc":"2.0","method":"n","params":[1]}`, Notification, 0, "", "n"},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, Response, 0, `3`, ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m","data":[1]}}`, Response, 0, `3`, ""},

		{``, Invalid, ParseError, "", ""},
		{`{"jsonrpc":"2.0",`, Invalid, ParseError, "", ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", Invalid, ParseError, "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, Invalid, InvalidRequest, "", ""},
		{`[]`, Invalid, InvalidRequest, "", ""},
		{`"hello"`, Invalid, InvalidRequest, "", ""},
		{`null`, Invalid, InvalidRequest, "", ""},
		{`{}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":1e3,"method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"1.0","id":9,"method":"x"}`, Invalid, InvalidRequest, `9`, ""},
		{`{"id":9,"method":"x"}`, Invalid, InvalidRequest, `9`, ""},
		{`{"JSONRPC":"2.0","ID":9,"Method":"x"}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":9,"method":null}`, Invalid, InvalidRequest, `9`, ""},
		{`{"jsonrpc":"2.0","id":9,"method":4}`, Invalid, InvalidRequest, `9`, ""},
		{`{"jsonrpc":"2.0","id":9,"method":"x","params":"p"}`, Invalid, InvalidRequest, `9`, "x"},
		{`{"jsonrpc":"2.0","id":9,"method":"x","params":null}`, Invalid, InvalidRequest, `9`, "x"},
		{`{"jsonrpc":"2.0","id":9,"method":"x","result":{}}`, Invalid, InvalidRequest, `9`, "x"},
		{`{"jsonrpc":"2.0","result":{}}`, Invalid, InvalidRequest, "", ""},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, Invalid, InvalidRequest, `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, Invalid, InvalidRequest, `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, Invalid, InvalidRequest, `1`, ""},
	}
	for _, tt := range tests {
		m, err := Decode([]byte(tt.in))
		if m == nil {
			t.Fatalf("Decode(%s) returned a nil Message", tt.in)
		}
		if got := errCode(err); got != tt.code {
			t.Errorf("Decode(%s) code = %d, want %d (err %v)", tt.in, got, tt.code, err)
		}
		if m.Kind != tt.kind || string(m.ID) != tt.id || m.Method != tt.method {
			t.Errorf("Decode(%s) = {%v %s %q}, want {%v %s %q}", tt.in, m.Kind, m.ID, m.Method, tt.kind, tt.id, tt.method)
		}
	}
}

func errCode(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if !errors.As(err, &e) {
		return -1
	}
	return e.Code
}

// errMessage returns the message of a *Error, or "" for none.
func errMessage(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return ""
	}
	return e.Message
}

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"result", func() ([]byte, error) {
			return EncodeResult(json.RawMessage(`"a<b"`), map[string]string{"x": "<&>"})
		}, `{"jsonrpc":"2.0","id":"a<b","result":{"x":"<&>"}}`},
		{"error with id", func() ([]byte, error) {
			return EncodeError(json.RawMessage(`12345678901234567890`), Errorf(InvalidParams, "bad %s", "cursor"))
		}, `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32602,"message":"bad cursor"}}`},
		{"error without id", func() ([]byte, error) {
			return EncodeError(nil, &Error{Code: UnsupportedProtocolVersion, Message: "m", Data: map[string]any{"supported": []string{"v"}}})
		}, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"m","data":{"supported":["v"]}}}`},
		{"notification", func() ([]byte, error) {
			return EncodeNotification("notifications/progress", map[string]int{"progress": 1})
		}, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"result that writes itself", func() ([]byte, error) {
			return EncodeResult(json.RawMessage(`7`), withRaw{struct {
				X string `json:"x"`
			}{"<&>"}, json.RawMessage(`{"a":[1,"b"]}`)})
		}, `{"jsonrpc":"2.0","id":7,"result":{"x":"<&>","structured":{"a":[1,"b"]}}}`},
		{"result that writes itself, into an empty object", func() ([]byte, error) {
			return EncodeResult(json.RawMessage(`"r"`), withRaw{struct{}{}, json.RawMessage(`[]`)})
		}, `{"jsonrpc":"2.0","id":"r","result":{"structured":[]}}`},
		{"result that writes itself, without its raw member", func() ([]byte, error) {
			return EncodeResult(json.RawMessage(`7`), withRaw{map[string]int{"n": 1}, nil})
		}, `{"jsonrpc":"2.0","id":7,"result":{"n":1}}`},
		{"an id with a space goes through encoding/json", func() ([]byte, error) {
			return EncodeResult(json.RawMessage(`"a b"`), withRaw{map[string]int{"n": 1}, json.RawMessage(`2`)})
		}, `{"jsonrpc":"2.0","id":"a b","result":{"n":1}}`},
	}
	for _, tt := range tests {
		got, err := tt.got()
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
	if _, err := EncodeResult(json.RawMessage(`1`), nil); err == nil {
		t.Errorf("EncodeResult(1, nil) succeeded, want an error")
	}
	if _, err := EncodeNotification("", nil); err == nil {
		t.Errorf("EncodeNotification(\"\", nil) succeeded, want an error")
	}
}

// withRaw is a result with one member already in JSON.
type withRaw struct {
	rest any
	raw  json.RawMessage
}

func (w withRaw) AppendJSON(b []byte) ([]byte, error) {
	return AppendObjectWith(b, w.rest, Member{"structured", w.raw})
}

// MarshalJSON is what encoding/json writes when the result cannot write
// itself: here, without the raw member, so tests see which way it went.
func (w withRaw) MarshalJSON() ([]byte, error) { return json.Marshal(w.rest) }

// FuzzDecode checks that Decode never panics, fails only with the two
// codes a decoder may use, and that what it accepts is well formed and
// survives a round trip through the encoders.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`,
		`{"jsonrpc":"2.0","id":"r","result":{"resultType":"complete"}}`,
		`{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1.0,"method":"x"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"x","params":[]}`,
		`{`, ``, `0`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":"[[[\\\"]]]","b":[[[]]]}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":{"d":[{}]}}}`,
		deepCall(MaxDepth), deepCall(MaxDepth + 1),
		strings.Repeat("[", 1000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if m == nil {
			t.Fatal("nil Message")
		}
		checkDepth(t, data, err)
		if err != nil {
			checkFailure(t, m, err)
			return
		}
		checkMessage(t, m)
		checkReencode(t, m)
	})
}

// deepCall returns a request whose params nest depth levels in all, the
// message's own object included.
func deepCall(depth int) string {
	n := depth - 2 // the message and params objects
	return `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
}

// checkDepth holds the depth limit against a second count of the same
// nesting, by encoding/json's tokenizer: valid JSON nested too deeply is
// refused with the depth error, and nothing else is.
func checkDepth(t *testing.T, data []byte, err error) {
	depth, valid := jsonDepth(data)
	tooDeepErr := errMessage(err) == msgTooDeep
	if valid && (depth > MaxDepth) != tooDeepErr {
		t.Fatalf("depth %d, Decode error %v", depth, err)
	}
	if tooDeepErr && !tooDeep(data, MaxDepth) {
		t.Fatalf("depth error for input within the limit")
	}
}

// jsonDepth returns the nesting depth of data, and whether it is one valid
// UTF-8 JSON value.
func jsonDepth(data []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return deepest, json.Valid(data) && utf8.Valid(data)
}

// call is the wire form of a request or notification, which this package
// decodes but never sends; unlike wire it keeps an empty method.
type call struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// checkReencode encodes an accepted message again, with this package's
// encoders where it has one for the kind, and checks that it decodes to
// the same message.
func checkReencode(t *testing.T, m *Message) {
	var out []byte
	var err error
	params := any(nil) // absent params stay absent, not null
	if m.Params != nil {
		params = m.Params
	}
	switch {
	case m.Kind == Notification && m.Method != "":
		out, err = EncodeNotification(m.Method, params)
	case m.Kind == Notification || m.Kind == Request:
		out, err = marshal(call{JSONRPC: Version, ID: m.ID, Method: m.Method, Params: params})
	case m.Error != nil:
		out, err = EncodeError(m.ID, m.Error)
	default:
		out, err = EncodeResult(m.ID, m.Result)
	}
	if err != nil {
		t.Fatalf("re-encoding %+v: %v", m, err)
	}
	back, err := Decode(out)
	if err != nil {
		t.Fatalf("Decode(%s) of a re-encoded message: %v", out, err)
	}
	if got, want := summary(back), summary(m); got != want {
		t.Fatalf("re-encoded message decodes to %s, want %s", got, want)
	}
}

// summary renders m for comparison, its raw members compacted.
func summary(m *Message) string {
	var b strings.Builder
	b.WriteString(m.Kind.String() + " " + string(m.ID) + " " + m.Method)
	for _, raw := range []json.RawMessage{m.Params, m.Result} {
		b.WriteString(" " + compact(raw))
	}
	if m.Error != nil {
		data, _ := m.Error.Data.(json.RawMessage)
		b.WriteString(" " + errorSummary(m.Error) + " " + compact(data))
	}
	return b.String()
}

func errorSummary(e *Error) string {
	out, _ := json.Marshal(struct {
		Code    int
		Message string
	}{e.Code, e.Message})
	return string(out)
}

func compact(raw json.RawMessage) string {
	if raw == nil {
		return "<absent>"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "<invalid " + err.Error() + ">"
	}
	return b.String()
}

func TestDecodeDepth(t *testing.T) {
	tests := []struct {
		name string
		in   string
		code int
		msg  string
	}{
		{"at the limit", deepCall(MaxDepth), 0, ""},
		{"one over", deepCall(MaxDepth + 1), ParseError, msgTooDeep},
		{"far over", deepCall(10 * MaxDepth), ParseError, msgTooDeep},
		{"brackets in a string", `{"jsonrpc":"2.0","method":"x","params":{"s":"` + strings.Repeat("[{", 200) + `"}}`, 0, ""},
		{"escaped quote in a string", `{"jsonrpc":"2.0","method":"x","params":{"s":"\"` + strings.Repeat("[", 200) + `"}}`, 0, ""},
		{"escaped backslash ends a string", `{"jsonrpc":"2.0","method":"x","params":{"s":"\\",` + `"t":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, ParseError, msgTooDeep},
		{"deep batch", strings.Repeat("[", 100) + strings.Repeat("]", 100), ParseError, msgTooDeep},
		{"deep and unclosed", strings.Repeat("{\"a\":", 65), ParseError, msgTooDeep},
		{"unclosed within the limit", strings.Repeat("[", 64), ParseError, msgNotJSON},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in))
		if got := errCode(err); got != tt.code {
			t.Errorf("%s: Decode code = %d, want %d (err %v)", tt.name, got, tt.code, err)
			continue
		}
		if got := errMessage(err); got != tt.msg {
			t.Errorf("%s: Decode message = %q, want %q", tt.name, got, tt.msg)
		}
	}
}

func TestDecodeDepthMessage(t *testing.T) {
	_, err := Decode([]byte(deepCall(MaxDepth + 1)))
	want := "parse error: JSON nested deeper than 64 levels"
	if errCode(err) != ParseError || errMessage(err) != want {
		t.Errorf("Decode(too deep) = %v, want code %d and message %q", err, ParseError, want)
	}
}

func TestTooDeep(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  bool
	}{
		{``, 0, false},
		{`1`, 0, false},
		{`[]`, 0, true},
		{`[]`, 1, false},
		{`[[]]`, 1, true},
		{`[{},{},[]]`, 2, false},
		{`[[],[[]]]`, 2, true},
		{`"[[["`, 1, false},
		{`"\"[[["`, 1, false},
		{`"\\"[[`, 1, true},
		{`"\\\"[["`, 1, false},
		{`]]]][[[[`, 1, false}, // not JSON: the count went below zero first
	}
	for _, tt := range tests {
		if got := tooDeep([]byte(tt.in), tt.limit); got != tt.want {
			t.Errorf("tooDeep(%s, %d) = %v, want %v", tt.in, tt.limit, got, tt.want)
		}
	}
}

func TestTooDeepAllocs(t *testing.T) {
	data := []byte(deepCall(MaxDepth) + strings.Repeat(`"\\"`, 100))
	if n := testing.AllocsPerRun(100, func() { tooDeep(data, MaxDepth) }); n != 0 {
		t.Errorf("tooDeep allocates %v times per call, want 0", n)
	}
}

func BenchmarkTooDeep(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"s":"` +
		strings.Repeat(`a\"[{`, 1<<16) + `"}}}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		tooDeep(data, MaxDepth)
	}
}

func checkFailure(t *testing.T, m *Message, err error) {
	if c := errCode(err); c != ParseError && c != InvalidRequest {
		t.Fatalf("error code %d (%v), want ParseError or InvalidRequest", c, err)
	}
	if m.Kind != Invalid {
		t.Fatalf("Kind = %v with an error, want invalid", m.Kind)
	}
	if m.ID != nil && !ValidID(m.ID) {
		t.Fatalf("kept invalid id %s", m.ID)
	}
}

func checkMessage(t *testing.T, m *Message) {
	switch m.Kind {
	case Request, Response:
		if !ValidID(m.ID) {
			t.Fatalf("%v with invalid id %s", m.Kind, m.ID)
		}
	case Notification:
		if m.ID != nil {
			t.Fatalf("notification with id %s", m.ID)
		}
		return
	default:
		t.Fatalf("Kind = %v without an error", m.Kind)
	}
	// A response to this id must decode back to the same id.
	out, err := EncodeError(m.ID, &Error{Code: Internal, Message: "x"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(out)
	if err != nil || back.Kind != Response || string(back.ID) != string(m.ID) {
		t.Fatalf("round trip of id %s = %s (%v)", m.ID, back.ID, err)
	}
}

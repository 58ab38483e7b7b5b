package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
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
}

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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if m == nil {
			t.Fatal("nil Message")
		}
		if err != nil {
			checkFailure(t, m, err)
			return
		}
		checkMessage(t, m)
	})
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

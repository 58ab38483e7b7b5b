package mcptest

import "testing"

func TestValidate(t *testing.T) {
	tests := []struct {
		def, msg string
		ok       bool
	}{
		{"DiscoverResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}`, true},
		{"DiscoverResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}}`, false},
		{"JSONRPCErrorResponse", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"m"}}`, true},
		{"JSONRPCErrorResponse", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`, false},
		{"UnsupportedProtocolVersionError", `{"jsonrpc":"2.0","id":"a","error":{"code":-32022,"message":"m"}}`, false},
		{"ProgressNotification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1.5}}`, true},
		{"ProgressNotification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}`, false},
	}
	for _, tt := range tests {
		err := Validate(Version, []byte(tt.msg), tt.def)
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%s, %s) = %v, want ok=%v", tt.def, tt.msg, err, tt.ok)
		}
	}
	if err := Validate("1900-01-01", []byte(`{}`), "Result"); err == nil {
		t.Errorf("Validate with an unknown revision succeeded")
	}
}

func TestValidateServerMessage(t *testing.T) {
	ValidateServerMessage(t, []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`), "tools/call")
	ValidateServerMessage(t, []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"x"}}}`), "tools/call")
	ValidateServerMessage(t, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`), "tools/call")

	ft := &fakeT{TB: t}
	ValidateServerMessage(ft, []byte(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}`), "tools/call")
	if !ft.failed {
		t.Errorf("a tools/call result without content passed")
	}
}

// fakeT records failures instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}

func TestValidateLegacy(t *testing.T) {
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		ValidateServerMessageAt(t, v, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"`+v+`","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`), "initialize")
		ValidateServerMessageAt(t, v, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), "ping")
		ValidateServerMessageAt(t, v, []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"m"}}`), "")
		ValidateServerMessageAt(t, v, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`), "tools/call")

		refused := []struct{ msg, method string }{
			{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"x","capabilities":{}}}`, "initialize"},
			{`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}`, "tools/call"},
			{`{"jsonrpc":"2.0","id":2,"result":{"tools":[],"ttlMs":0,"cacheScope":"private"}}`, "tools/list"},
			{`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":[1]}}`, "tools/call"},
			{`{"jsonrpc":"2.0","id":2,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`, "tools/call"},
		}
		for _, r := range refused {
			ft := &fakeT{TB: t}
			ValidateServerMessageAt(ft, v, []byte(r.msg), r.method)
			if !ft.failed {
				t.Errorf("%s: %s passed for %s", v, r.msg, r.method)
			}
		}
	}
}

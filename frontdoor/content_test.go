package frontdoor

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// TestContentNotServed checks that a feature without a backend is neither
// advertised nor served: its methods get -32601 (404) in both eras.
func TestContentNotServed(t *testing.T) {
	h, err := New(Config{
		Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(),
		SessionKeys: [][]byte{testSessionKey}, now: testNow, Logger: discardLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(h, newCall(t, 1, "server/discover", nil, nil))
	var d struct{ Capabilities map[string]json.RawMessage }
	decodeResult(t, rec.Body.Bytes(), &d)
	for _, c := range []string{"resources", "prompts", "completions"} {
		if _, ok := d.Capabilities[c]; ok {
			t.Errorf("discover advertises %s without a backend: %s", c, rec.Body)
		}
	}
	calls := []struct {
		method string
		params map[string]any
	}{
		{"resources/list", nil},
		{"resources/templates/list", nil},
		{"resources/read", map[string]any{"uri": "taskwire://boards/main/context"}},
		{"prompts/list", nil},
		{"prompts/get", map[string]any{"name": "standup"}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "standup"}, "argument": map[string]any{"name": "board", "value": ""}}},
	}
	for i, c := range calls {
		req := newCall(t, i+2, c.method, c.params, nil)
		if uri, ok := c.params["uri"].(string); ok {
			req.Header.Set(mcp.HeaderName, uri)
		}
		rec := serve(h, req)
		var msg struct{ Error struct{ Code int } }
		_ = json.Unmarshal(rec.Body.Bytes(), &msg)
		if rec.Code != http.StatusNotFound || msg.Error.Code != -32601 {
			t.Errorf("%s without a backend = %d %s, want 404 and -32601", c.method, rec.Code, rec.Body)
		}
		mcptest.ValidateServerMessage(t, rec.Body.Bytes(), c.method)
	}
}

// TestCompletionCapped checks that the handler caps what a backend
// returns at 100 values, whatever the backend does.
func TestCompletionCapped(t *testing.T) {
	h := newTestHandler(t, nil, nil)
	rec := serve(h, newCall(t, 1, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "standup"},
		"argument": map[string]any{"name": "ref", "value": ""},
	}, nil))
	var res struct{ Completion mcp.Completion }
	decodeResult(t, rec.Body.Bytes(), &res)
	if got := res.Completion; len(got.Values) != mcp.MaxCompletionValues || !got.HasMore || got.Total != 150 {
		t.Errorf("completion = %d values, hasMore %v, total %d; want %d, true, 150", len(got.Values), got.HasMore, got.Total, mcp.MaxCompletionValues)
	}
}

// newRichHandler returns a Handler over richContent.
func newRichHandler(t *testing.T) *Handler {
	t.Helper()
	h, err := New(Config{
		Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), Resources: richContent{}, Prompts: richContent{},
		ServerInfo:  mcp.Implementation{Name: "taskwire", Version: "1.0.0-test"},
		SessionKeys: [][]byte{testSessionKey}, now: testNow, Logger: discardLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPromptInputRequired runs a prompt that asks for input at 2026-07-28:
// input_required as tools/call answers it, then the prompt on the retry
// that brings inputResponses and requestState.
func TestPromptInputRequired(t *testing.T) {
	h := newRichHandler(t)
	elicit := map[string]any{mcp.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}}}

	rec := serve(h, newCall(t, 1, "prompts/get", map[string]any{"name": "greet"}, elicit))
	mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "prompts/get")
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"taskwire","version":"1.0.0-test"}},` +
		`"inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Who is asking?","mode":"form","requestedSchema":` +
		`{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}},"requestState":"greet-state-1"}}`
	if got := strings.TrimSpace(rec.Body.String()); rec.Code != http.StatusOK || got != want {
		t.Errorf("prompts/get greet = %d\n%s\nwant\n%s", rec.Code, got, want)
	}

	rec = serve(h, newCall(t, 2, "prompts/get", map[string]any{
		"name":           "greet",
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
		"requestState":   greetState,
	}, elicit))
	mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "prompts/get")
	var res struct {
		ResultType string
		Messages   []mcp.PromptMessage
	}
	decodeResult(t, rec.Body.Bytes(), &res)
	if res.ResultType != mcp.ResultComplete || len(res.Messages) != 1 || res.Messages[0].Content.Text != "Hello, Ada." {
		t.Errorf("prompts/get greet, retried = %s", rec.Body)
	}

	refused := []struct {
		params map[string]any
		meta   map[string]any
		code   int
	}{
		{map[string]any{"name": "greet"}, nil, jsonrpc.MissingRequiredClientCapability},
		{map[string]any{"name": "greet", "inputResponses": []string{"Ada"}, "requestState": greetState}, elicit, jsonrpc.InvalidParams},
		{map[string]any{"name": "greet", "inputResponses": map[string]any{}, "requestState": 1}, elicit, jsonrpc.InvalidParams},
		{map[string]any{"name": "greet", "inputResponses": map[string]any{}, "requestState": "forged"}, elicit, jsonrpc.InvalidParams},
	}
	for i, tt := range refused {
		rec := serve(h, newCall(t, 3+i, "prompts/get", tt.params, tt.meta))
		mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "prompts/get")
		var msg struct{ Error struct{ Code int } }
		_ = json.Unmarshal(rec.Body.Bytes(), &msg)
		if msg.Error.Code != tt.code {
			t.Errorf("prompts/get %v = %s, want error %d", tt.params, rec.Body, tt.code)
		}
	}
}

// TestLegacyPromptInputRequired checks that a legacy session, which has no
// input rounds, is told that a prompt needs input it cannot give, and
// still gets the prompts that need none.
func TestLegacyPromptInputRequired(t *testing.T) {
	h := newRichHandler(t)
	for _, version := range []string{mcp.Version20250618, mcp.Version20251125} {
		sid, err := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, json.RawMessage(`{"elicitation":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		rec := serve(h, legacyPost(sid, version, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"greet"}}`))
		mcptest.ValidateServerMessageAt(t, version, rec.Body.Bytes(), "prompts/get")
		var msg struct {
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &msg)
		if msg.Error.Code != jsonrpc.InvalidParams || !strings.Contains(msg.Error.Message, "greet needs input") || !strings.Contains(msg.Error.Message, version) {
			t.Errorf("%s: prompts/get greet = %s, want -32602 saying greet needs input", version, rec.Body)
		}
		rec = serve(h, legacyPost(sid, version, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"standup"}}`))
		mcptest.ValidateServerMessageAt(t, version, rec.Body.Bytes(), "prompts/get")
		if !strings.Contains(rec.Body.String(), `"messages":[`) {
			t.Errorf("%s: prompts/get standup = %s, want the prompt", version, rec.Body)
		}
	}
}

// TestBinaryResource checks that binary contents go out as a blob, with
// no text, in both eras.
func TestBinaryResource(t *testing.T) {
	h := newRichHandler(t)
	const want = `"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"iVBORw0KGgo="}]`
	req := newCall(t, 1, "resources/read", map[string]any{"uri": "test://static-binary"}, nil)
	req.Header.Set(mcp.HeaderName, "test://static-binary")
	rec := serve(h, req)
	mcptest.ValidateServerMessage(t, rec.Body.Bytes(), "resources/read")
	if !strings.Contains(rec.Body.String(), want) {
		t.Errorf("resources/read = %s, want %s", rec.Body, want)
	}
	sid, err := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, mcp.Version20250618, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec = serve(h, legacyPost(sid, mcp.Version20250618, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://static-binary"}}`))
	mcptest.ValidateServerMessageAt(t, mcp.Version20250618, rec.Body.Bytes(), "resources/read")
	if !strings.Contains(rec.Body.String(), want) {
		t.Errorf("legacy resources/read = %s, want %s", rec.Body, want)
	}
}

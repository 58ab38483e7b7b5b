package frontdoor

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
)

// legacyPost returns a POST of body in the session sid at version.
func legacyPost(sid, version, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, testEndpoint, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tokenAll)
	req.Header.Set(mcp.HeaderProtocolVersion, version)
	req.Header.Set(mcp.HeaderSessionID, sid)
	return req
}

// TestSessionRotation checks that a replica with a newer key first still
// takes the sessions of the old key, and that one without it does not.
func TestSessionRotation(t *testing.T) {
	old := newTestHandler(t, nil, nil)
	init := httptest.NewRequest(http.MethodPost, testEndpoint, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`))
	init.Header.Set("Accept", "application/json, text/event-stream")
	init.Header.Set("Content-Type", "application/json")
	init.Header.Set("Authorization", "Bearer "+tokenAll)
	sid := serve(old, init).Header().Get(mcp.HeaderSessionID)

	newKey := bytes.Repeat([]byte{9}, len(testSessionKey))
	rotated, err := New(Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), SessionKeys: [][]byte{newKey, testSessionKey}, Logger: discardLog, now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if rec := serve(rotated, legacyPost(sid, "2025-06-18", ping)); rec.Code != http.StatusOK {
		t.Errorf("rotated replica: ping in an old session = %d %s, want 200", rec.Code, rec.Body)
	}
	newOnly, _ := New(Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(), SessionKeys: [][]byte{newKey}, Logger: discardLog, now: testNow})
	if rec := serve(newOnly, legacyPost(sid, "2025-06-18", ping)); rec.Code != http.StatusNotFound {
		t.Errorf("replica without the old key: ping = %d, want 404", rec.Code)
	}
}

// TestLegacyToolShapes checks what legacy revisions cannot carry: an
// outputSchema that is not an object schema, structuredContent that is
// not an object, and a call that needs a client capability.
func TestLegacyToolShapes(t *testing.T) {
	arrayOut := newTool("tasks_ids", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(`["T-1"]`)}, StructuredContent: json.RawMessage(`["T-1"]`)}, nil
	})
	arrayOut.tool.OutputSchema = json.RawMessage(`{"type":"array"}`)
	confirm := newTool("tasks_delete", authz.ScopeRead, func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.MissingRequiredClientCapability, Message: "tasks_delete needs a person to confirm it"}
	})
	h := newTestHandler(t, &fakeBackend{tools: []fakeTool{arrayOut, confirm}}, nil)
	sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, "2025-06-18", nil)

	tests := []struct{ method, body, want string }{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `"inputSchema":{"type":"object","additionalProperties":false}}`},
		{"tools/call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tasks_ids"}}`, `{"content":[{"type":"text","text":"[\"T-1\"]"}]}`},
		{"tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tasks_delete"}}`, `cannot ask for`},
	}
	for _, tt := range tests {
		rec := serve(h, legacyPost(sid, "2025-06-18", tt.body))
		got := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.Contains(got, tt.want) || strings.Contains(got, `"type":"array"`) {
			t.Errorf("%s: %d %s, want 200 with %s", tt.body, rec.Code, got, tt.want)
		}
		mcptest.ValidateServerMessageAt(t, "2025-06-18", rec.Body.Bytes(), tt.method)
	}
}

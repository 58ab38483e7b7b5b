package frontdoor

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
)

// toolsetBackend refuses every call as a token limited to toolsets that
// do not hold the tool, as the real backend (toolcall) does.
type toolsetBackend struct{ fakeBackend }

func (*toolsetBackend) CallTool(_ context.Context, _ identity.Caller, call *mcp.ToolCall, _ progress.Reporter) (*mcp.CallToolResult, error) {
	return nil, &mcp.ToolsetError{
		Tool: call.Name, Toolset: "work", Toolsets: []string{"tasks", "comments"},
		Message: "This token is limited to the toolsets tasks, comments, and " + call.Name + " is in the work toolset; ask an admin for a token that includes work.",
	}
}

// TestToolsetRefusal: a tool outside the token's toolsets is refused as a
// missing scope is: HTTP 403, an insufficient_scope challenge, and a
// JSON-RPC error whose message names the token's toolsets.
func TestToolsetRefusal(t *testing.T) {
	h := newTestHandler(t, &toolsetBackend{}, nil)
	rec := serve(h, newCall(t, 5, "tools/call", map[string]any{"name": "work_next", "arguments": map[string]any{}}, nil))
	if rec.Code != http.StatusForbidden {
		t.Fatalf("status = %d, want 403; body %s", rec.Code, rec.Body)
	}
	ch := rec.Header().Get("Www-Authenticate")
	if !strings.HasPrefix(ch, `Bearer error="insufficient_scope", error_description="This token is limited to the toolsets tasks, comments, and work_next is in the work toolset`) ||
		!strings.Contains(ch, `resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/api/mcp"`) {
		t.Errorf("WWW-Authenticate = %s, want an insufficient_scope challenge describing the toolsets", ch)
	}
	var msg struct {
		ID    int
		Error jsonrpc.Error
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil {
		t.Fatalf("body %s: %v", rec.Body, err)
	}
	want := "forbidden: this token is limited to the toolsets tasks, comments, and work_next is in the work toolset; ask an admin for a token that includes work."
	if msg.ID != 5 || msg.Error.Code != jsonrpc.InvalidRequest || msg.Error.Message != want {
		t.Errorf("body = %s, want id 5, code %d, message %q", rec.Body, jsonrpc.InvalidRequest, want)
	}
}

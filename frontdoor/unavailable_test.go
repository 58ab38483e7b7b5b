package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/progress"
)

// unavailableBackend fails tools/list, and the tool "check" (as the
// access check before a call does), for want of a worker.
func unavailableBackend() *fakeBackend {
	down := &mcp.UnavailableError{Cause: errors.New("rpc error: code = Unavailable desc = the database cannot be reached")}
	return &fakeBackend{toolsErr: down, tools: []fakeTool{newTool("check", authz.ScopeRead,
		func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return nil, down
		})}}
}

// checkUnavailable checks that rec is the answer to a request no worker
// could serve: 503, Retry-After, jsonrpc.Unavailable with the sentence a
// tool call gets and data.retryAfterMs.
func checkUnavailable(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var body struct {
		ID    any
		Error struct {
			Code    int
			Message string
			Data    struct{ RetryAfterMs int64 }
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: body %s: %v", what, rec.Body, err)
	}
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("%s: status %d, Retry-After %q; want 503, 1", what, rec.Code, rec.Header().Get("Retry-After"))
	}
	e := body.Error
	if e.Code != jsonrpc.Unavailable || e.Message != mcp.UnavailableText || e.Data.RetryAfterMs != 1000 || body.ID == nil {
		t.Errorf("%s: body %s; want code %d, message %q, data.retryAfterMs 1000 and the request's id", what, rec.Body, jsonrpc.Unavailable, mcp.UnavailableText)
	}
}

// TestUnavailable: a request no worker could serve is 503 with
// Retry-After in either era, never -32603, for tools/list and for the
// access check of a tool call alike.
func TestUnavailable(t *testing.T) {
	h := newTestHandler(t, unavailableBackend(), nil)
	checkUnavailable(t, "tools/list", serve(h, newCall(t, 1, "tools/list", nil, nil)))
	checkUnavailable(t, "tools/call's access check", serve(h, newCall(t, 2, "tools/call", map[string]any{"name": "check", "arguments": map[string]any{}}, nil)))

	req := httptest.NewRequest(http.MethodPost, testEndpoint, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tokenAll)
	req.Header.Set(mcp.HeaderProtocolVersion, "2025-11-25")
	req.Header.Set(mcp.HeaderSessionID, mintSession(t, h, []string{"2025-11-25"}))
	checkUnavailable(t, "tools/list of a legacy session", serve(h, req))
}

// TestUnavailableRefunded: a request no worker could serve costs no rate
// budget, so a client retrying it after Retry-After is not then limited.
func TestUnavailableRefunded(t *testing.T) {
	h := newLimitedHandler(t, unavailableBackend())
	for i := range 3 {
		checkUnavailable(t, "tools/list again", serve(h, newCall(t, i, "tools/list", nil, nil)))
	}
}

// TestUnavailableToolResultRefunded: a tool call answered with the
// unavailable tool result costs no rate budget either.
func TestUnavailableToolResultRefunded(t *testing.T) {
	h := newLimitedHandler(t, &fakeBackend{tools: []fakeTool{newTool("down", authz.ScopeRead,
		func(context.Context, json.RawMessage, progress.Reporter) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(mcp.UnavailableText)}, IsError: true, Unavailable: true}, nil
		})}})
	for i := range 3 {
		rec := serve(h, newCall(t, i, "tools/call", map[string]any{"name": "down", "arguments": map[string]any{}}, nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"isError":true`) {
			t.Errorf("call %d = %d %s, want 200 with the unavailable tool result", i+1, rec.Code, rec.Body)
		}
	}
}

package frontdoor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/services/access"
)

// newLimitedHandler is a test handler over b (nil: the golden backend)
// whose limits allow one call of each operation per token, and a tenant
// ten, with a clock that stands still.
func newLimitedHandler(t *testing.T, b ToolBackend) *Handler {
	t.Helper()
	h := newTestHandler(t, b, nil)
	rl, err := NewRateLimiter(RateLimits{
		Token:  RateLimit{PerSecond: 1, Burst: 1},
		Tenant: RateLimit{PerSecond: 10, Burst: 10},
		Now:    testNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.cfg.RateLimiter = rl
	return h
}

// TestRateLimitCharges: what the server refused for another reason costs
// nothing; what it served, even as a tool error or an internal error,
// costs a call.
func TestRateLimitCharges(t *testing.T) {
	toolCall := func(name string) func() *http.Request {
		return func() *http.Request {
			return newCall(t, 1, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, nil)
		}
	}
	badHeader := func() *http.Request {
		req := newCall(t, 1, "tools/call", map[string]any{"name": "tasks_list"}, nil)
		req.Header.Set(mcp.HeaderName, "tasks_get")
		return req
	}
	for _, tt := range []struct {
		name       string
		first      func() *http.Request
		wantSecond int // the status of the same call again
	}{
		{"result", toolCall("tasks_list"), http.StatusTooManyRequests},
		{"tool error", toolCall("tasks_get"), http.StatusTooManyRequests},
		{"internal error", toolCall("tasks_export"), http.StatusTooManyRequests},
		{"unknown tool", toolCall("tasks_nope"), http.StatusBadRequest},
		{"header mismatch", badHeader, http.StatusBadRequest},
	} {
		h := newLimitedHandler(t, nil)
		if rec := serve(h, tt.first()); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("%s: first call = 429", tt.name)
		}
		if rec := serve(h, tt.first()); rec.Code != tt.wantSecond {
			t.Errorf("%s: second call = %d %s, want %d", tt.name, rec.Code, rec.Body, tt.wantSecond)
		}
	}
}

// TestRateLimitBudgetReachesBackend: the backend gets the budget left in
// its context, which the gRPC tool backend sends to the worker.
func TestRateLimitBudgetReachesBackend(t *testing.T) {
	var sent []string
	b := &fakeBackend{tools: []fakeTool{newTool("whoami", authz.ScopeRead, func(ctx context.Context, _ json.RawMessage, _ progress.Reporter) (*mcp.CallToolResult, error) {
		md, _ := metadata.FromOutgoingContext(access.AppendBudget(ctx))
		sent = md.Get(access.MDBudget)
		return textResult("you")
	})}}
	h := newLimitedHandler(t, b)
	if rec := serve(h, newCall(t, 1, "tools/call", map[string]any{"name": "whoami"}, nil)); rec.Code != http.StatusOK {
		t.Fatalf("whoami = %d %s", rec.Code, rec.Body)
	}
	if want := "token=0/1/1;tenant=9/10/10"; len(sent) != 1 || sent[0] != want {
		t.Errorf("budget sent = %q, want %q", sent, want)
	}

	// Without limits, none is sent.
	sent = nil
	h = newTestHandler(t, b, nil)
	serve(h, newCall(t, 1, "tools/call", map[string]any{"name": "whoami"}, nil))
	if len(sent) != 0 {
		t.Errorf("budget sent without limits = %q, want none", sent)
	}
}

// TestRateLimitLegacy: a legacy session's requests are limited by method,
// initialize too; a client's answer to a request of the server never is.
func TestRateLimitLegacy(t *testing.T) {
	h := newLimitedHandler(t, nil)
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, testEndpoint, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokenAll)
		if !strings.Contains(body, `"initialize"`) {
			req.Header.Set(mcp.HeaderProtocolVersion, "2025-11-25")
			req.Header.Set(mcp.HeaderSessionID, mintSession(t, h, []string{"2025-11-25"}))
		}
		return serve(h, req)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	if rec := post(initialize); rec.Code != http.StatusOK {
		t.Fatalf("initialize = %d %s", rec.Code, rec.Body)
	}
	if rec := post(initialize); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("initialize again = %d, Retry-After %q; want 429, 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	for i := range 3 {
		if rec := post(`{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}`); rec.Code != http.StatusAccepted {
			t.Errorf("client response %d = %d %s, want 202", i+1, rec.Code, rec.Body)
		}
	}
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if rec := post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); rec.Code != want {
			t.Errorf("ping %d = %d, want %d", i+1, rec.Code, want)
		}
	}
}

package frontdoor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/progress"
)

// decidingBackend has one tool, "drop", that needs a person's decision,
// as toolcall asks for one for an assistant: a URL-mode elicitation of
// decision D1 first, the tool's result on a retry once decided.
type decidingBackend struct {
	decided chan struct{} // closed when the person decided
	waited  chan string   // the decisions AwaitDecision was asked about
}

const decisionPage = "https://board.example/t/acme/decisions/D1"

func (b *decidingBackend) Tools(context.Context, identity.Caller) ([]mcp.Tool, error) {
	return []mcp.Tool{{Name: "drop", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}

func (b *decidingBackend) Check(context.Context, identity.Caller) error { return nil }

func (b *decidingBackend) ParamHeaders(string) []mcp.ParamHeader { return nil }

func (b *decidingBackend) CallTool(_ context.Context, c identity.Caller, call *mcp.ToolCall, _ progress.Reporter) (*mcp.CallToolResult, error) {
	select {
	case <-b.decided:
		return textResult("dropped")
	default:
	}
	return &mcp.CallToolResult{InputRequired: &mcp.InputRequiredResult{
		InputRequests: map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create",
			Params: mcp.NewElicitURL("Drop T-2? Only a person can approve this.", decisionPage, "D1")}},
		RequestState: "state",
	}}, nil
}

func (b *decidingBackend) AwaitDecision(ctx context.Context, _ identity.Caller, id string) error {
	b.waited <- id
	select {
	case <-b.decided:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newDecidingHandler(t *testing.T, b *decidingBackend) *Handler {
	t.Helper()
	mb, err := mailbox.New(natstest.Connect(t, natstest.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: b, SessionKeys: [][]byte{testSessionKey}, Mailbox: mb, Logger: discardLog, now: testNow})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

// TestLegacyDecision: a 2025-11-25 session with URL elicitation is asked
// to open the decision's page, its call waits until the person decided,
// is told the flow is complete, and gets the tool's result.
func TestLegacyDecision(t *testing.T) {
	b := &decidingBackend{decided: make(chan struct{}), waited: make(chan string, 1)}
	h := newDecidingHandler(t, b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	version := mcp.Version20251125
	sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, json.RawMessage(`{"elicitation":{"url":{}}}`))

	events := streamEvents(t, srv, sid, version, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop"}}`)
	asked := wait(t, events, "the elicitation")
	mcptest.ValidateMessageAt(t, version, asked, "ElicitRequest")
	var req struct {
		ID     string
		Params struct{ Mode, URL, ElicitationID string }
	}
	if err := json.Unmarshal(asked, &req); err != nil || req.Params.Mode != "url" || req.Params.URL != decisionPage || req.Params.ElicitationID != "D1" {
		t.Fatalf("first event = %s, want a URL elicitation of D1's page", asked)
	}
	answer := `{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"action":"accept"}}`
	if rec := serve(h, legacyPost(sid, version, answer)); rec.Code != http.StatusAccepted {
		t.Fatalf("POST of the answer = %d %s, want 202", rec.Code, rec.Body)
	}
	if id := wait(t, b.waited, "the wait for the decision"); id != "D1" {
		t.Errorf("AwaitDecision(%s), want D1", id)
	}
	close(b.decided)
	complete := wait(t, events, "the completion")
	mcptest.ValidateMessageAt(t, version, complete, "ElicitationCompleteNotification")
	if !strings.Contains(string(complete), `"elicitationId":"D1"`) {
		t.Errorf("completion = %s, want it to name D1", complete)
	}
	final := wait(t, events, "the result")
	mcptest.ValidateServerMessageAt(t, version, final, "tools/call")
	if got := resultText(t, final); got != "dropped" {
		t.Errorf("result = %q, want dropped", got)
	}
}

// TestLegacyDecisionNotOpened: a client that declines to open the page
// gets a tool error saying where the decision waits.
func TestLegacyDecisionNotOpened(t *testing.T) {
	b := &decidingBackend{decided: make(chan struct{}), waited: make(chan string, 1)}
	h := newDecidingHandler(t, b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	version := mcp.Version20251125
	sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, json.RawMessage(`{"elicitation":{"url":{}}}`))
	events := streamEvents(t, srv, sid, version, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop"}}`)
	var req struct{ ID string }
	json.Unmarshal(wait(t, events, "the elicitation"), &req)
	answer := `{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"action":"decline"}}`
	if rec := serve(h, legacyPost(sid, version, answer)); rec.Code != http.StatusAccepted {
		t.Fatalf("POST of the answer = %d %s, want 202", rec.Code, rec.Body)
	}
	final := wait(t, events, "the result")
	mcptest.ValidateServerMessageAt(t, version, final, "tools/call")
	if got := string(final); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, decisionPage) {
		t.Errorf("result = %s, want a tool error naming the decision's page", got)
	}
	select {
	case id := <-b.waited:
		t.Errorf("waited for %s after the client declined to open the page", id)
	default:
	}
}

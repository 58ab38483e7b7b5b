package frontdoor

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/progress"
)

// askingBackend has one tool, "ask", that asks the client one input
// request in a round sealed as the real tool backend seals it, then
// returns the answer as text.
type askingBackend struct {
	rounds *mrtr.Rounds
	method string
	params map[string]any
	caps   chan json.RawMessage // the capabilities of each call
}

func (b *askingBackend) Tools(context.Context, identity.Caller) ([]mcp.Tool, error) {
	return []mcp.Tool{{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}

func (b *askingBackend) Check(context.Context, identity.Caller) error { return nil }

func (b *askingBackend) ParamHeaders(string) []mcp.ParamHeader { return nil }

func (b *askingBackend) CallTool(_ context.Context, c identity.Caller, call *mcp.ToolCall, _ progress.Reporter) (*mcp.CallToolResult, error) {
	b.caps <- call.ClientCapabilities
	bind := mrtr.Binding{Tenant: c.Tenant, Member: c.Member, Target: "tools/call ask", Args: call.Arguments}
	in, err := b.rounds.Input(bind, call.ClientCapabilities, call.InputResponses, call.RequestState)
	if err != nil {
		return nil, err
	}
	if in.Retry {
		answer, _ := json.Marshal(in.GetResponses()["q"].AsMap())
		return textResult("answer: " + string(answer))
	}
	params, err := structpb.NewStruct(b.params)
	if err != nil {
		return nil, err
	}
	ir := &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{"q": {Method: b.method, Params: params}}}
	round, err := b.rounds.Required(bind, ir, call.ClientCapabilities)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequired: round}, nil
}

// newAskingHandler returns a Handler over b whose legacy calls can ask
// their clients, answers coming back through an embedded NATS server.
func newAskingHandler(t *testing.T, b *askingBackend) *Handler {
	t.Helper()
	mb, err := mailbox.New(natstest.Connect(t, natstest.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	box, _ := sealed.NewBox(testSessionKey)
	b.rounds = &mrtr.Rounds{Box: box}
	b.caps = make(chan json.RawMessage, 8)
	h, err := New(Config{Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: b, SessionKeys: [][]byte{testSessionKey}, Mailbox: mb, Logger: discardLog, now: testNow})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

// streamEvents POSTs body in session sid to srv and returns the data of
// each SSE event of the response as it arrives.
func streamEvents(t *testing.T, srv *httptest.Server, sid, version, body string) <-chan []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tokenAll)
	req.Header.Set(mcp.HeaderProtocolVersion, version)
	req.Header.Set(mcp.HeaderSessionID, sid)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	events := make(chan []byte, 8)
	go func() {
		defer res.Body.Close()
		defer close(events)
		r := bufio.NewReader(res.Body)
		var data []byte
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
				data = append(data, d...)
			} else if line == "\n" && data != nil {
				events <- data
				data = nil
			}
		}
	}()
	return events
}

// TestLegacyAsk: a legacy session that declared a capability gets the
// tool's input request as a request on the call's stream, and the call
// finishes with its answer, POSTed as a response.
func TestLegacyAsk(t *testing.T) {
	for _, tc := range []struct {
		name, version, caps string
		method, definition  string
		params              map[string]any
		result              string
		wantCaps            string // what the tool is told the call may use
	}{{
		name: "sampling", version: mcp.Version20251125, caps: `{"sampling":{}}`,
		method: "sampling/createMessage", definition: "CreateMessageRequest",
		params: map[string]any{"maxTokens": 20, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Capital of France?"}}}},
		result: `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`, wantCaps: `{"sampling":{}}`,
	}, {
		name: "roots", version: mcp.Version20250618, caps: `{"roots":{"listChanged":true},"elicitation":{}}`,
		method: "roots/list", definition: "ListRootsRequest",
		result: `{"roots":[{"uri":"file:///repo"}]}`, wantCaps: `{"elicitation":{"form":{}},"roots":{"listChanged":true}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := &askingBackend{method: tc.method, params: tc.params}
			h := newAskingHandler(t, b)
			srv := httptest.NewServer(h)
			defer srv.Close()
			sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, tc.version, json.RawMessage(tc.caps))

			events := streamEvents(t, srv, sid, tc.version, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
			asked := wait(t, events, "the input request")
			mcptest.ValidateMessageAt(t, tc.version, asked, "JSONRPCRequest")
			mcptest.ValidateMessageAt(t, tc.version, asked, tc.definition)
			var req struct {
				ID     string
				Method string
			}
			if err := json.Unmarshal(asked, &req); err != nil || req.Method != tc.method || req.ID == "" {
				t.Fatalf("first event = %s, want a %s request", asked, tc.method)
			}
			if got := string(wait(t, b.caps, "the call")); got != tc.wantCaps {
				t.Errorf("capabilities of the call = %s, want %s", got, tc.wantCaps)
			}

			answer := `{"jsonrpc":"2.0","id":"` + req.ID + `","result":` + tc.result + `}`
			if rec := serve(h, legacyPost(sid, tc.version, answer)); rec.Code != http.StatusAccepted {
				t.Fatalf("POST of the answer = %d %s, want 202", rec.Code, rec.Body)
			}
			final := wait(t, events, "the result")
			mcptest.ValidateServerMessageAt(t, tc.version, final, "tools/call")
			if text, ok := strings.CutPrefix(resultText(t, final), "answer: "); !ok || !sameJSON(text, tc.result) {
				t.Errorf("result = %s, want the answer %s as text", final, tc.result)
			}
		})
	}
}

// resultText returns the text of a tool result's one text block, failing
// t on an error result.
func resultText(t *testing.T, raw []byte) string {
	t.Helper()
	var res struct{ Result mcp.CallToolResult }
	if err := json.Unmarshal(raw, &res); err != nil || res.Result.IsError || len(res.Result.Content) != 1 {
		t.Fatalf("message = %s, want a result of one text block (%v)", raw, err)
	}
	return res.Result.Content[0].Text
}

func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// TestLegacyAskRefused: a session that did not declare what the tool
// asks for, or whose client answers with an error, gets a tool error the
// model can explain, not a protocol error.
func TestLegacyAskRefused(t *testing.T) {
	b := &askingBackend{method: "sampling/createMessage", params: map[string]any{"maxTokens": 5, "messages": []any{}}}
	h := newAskingHandler(t, b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`
	version := mcp.Version20251125

	// Elicitation declared, sampling not: nothing is sent on a stream.
	sid, _ := h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, json.RawMessage(`{"elicitation":{}}`))
	rec := serve(h, legacyPost(sid, version, call))
	mcptest.ValidateServerMessageAt(t, version, rec.Body.Bytes(), "tools/call")
	if got := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "sampling") {
		t.Errorf("call without sampling = %d %s, want a tool error naming sampling", rec.Code, got)
	}
	if got := string(wait(t, b.caps, "the call")); got != `{"elicitation":{"form":{}}}` {
		t.Errorf("capabilities of the call = %s, want elicitation in form mode only", got)
	}

	// Sampling declared, but the client refuses.
	sid, _ = h.sessions.issue(identity.Caller{Tenant: "acme", Member: 1}, version, json.RawMessage(`{"sampling":{}}`))
	events := streamEvents(t, srv, sid, version, call)
	var req struct{ ID string }
	json.Unmarshal(wait(t, events, "the input request"), &req)
	refusal := `{"jsonrpc":"2.0","id":"` + req.ID + `","error":{"code":-1,"message":"User rejected sampling request"}}`
	if rec := serve(h, legacyPost(sid, version, refusal)); rec.Code != http.StatusAccepted {
		t.Fatalf("POST of the refusal = %d %s, want 202", rec.Code, rec.Body)
	}
	final := wait(t, events, "the result")
	mcptest.ValidateServerMessageAt(t, version, final, "tools/call")
	if got := string(final); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "User rejected sampling request") {
		t.Errorf("result after a refusal = %s, want a tool error quoting it", got)
	}
}

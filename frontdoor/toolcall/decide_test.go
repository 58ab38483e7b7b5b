package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/events"
)

// testDecisions is a DecisionService over a map, whose decisions the
// tests decide by setting their state. Asked again, it returns the live
// decision of the same call, pending or approved, as DecisionService does.
type testDecisions struct {
	taskwirev1.UnimplementedDecisionServiceServer
	mu        sync.Mutex
	byID      map[string]*taskwirev1.Decision
	requested int
	gets      int
}

func (s *testDecisions) RequestDecision(ctx context.Context, req *taskwirev1.RequestDecisionRequest) (*taskwirev1.RequestDecisionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.byID {
		if (d.State == pending || d.State == approved) && d.Tool == req.Tool && d.Digest == req.Digest {
			return &taskwirev1.RequestDecisionResponse{Decision: d}, nil
		}
	}
	s.requested++
	d := &taskwirev1.Decision{Id: fmt.Sprintf("D%d", s.requested), Tool: req.Tool, Question: req.Question,
		ArgumentsJson: req.ArgumentsJson, Digest: req.Digest, State: pending}
	if s.byID == nil {
		s.byID = map[string]*taskwirev1.Decision{}
	}
	s.byID[d.Id] = d
	return &taskwirev1.RequestDecisionResponse{Decision: d}, nil
}

func (s *testDecisions) GetDecision(ctx context.Context, req *taskwirev1.GetDecisionRequest) (*taskwirev1.GetDecisionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	d, ok := s.byID[req.Id]
	if !ok {
		return nil, status.Error(codes.NotFound, "no decision")
	}
	return &taskwirev1.GetDecisionResponse{Decision: &taskwirev1.Decision{
		Id: d.Id, Tool: d.Tool, Question: d.Question, State: d.State, DecidedBy: d.DecidedBy, Reason: d.Reason,
	}}, nil
}

// asked is how many decisions were asked for.
func (s *testDecisions) asked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requested
}

func (s *testDecisions) set(id string, st taskwirev1.DecisionState, by, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.byID[id]
	d.State, d.DecidedBy, d.Reason = st, by, reason
}

// decisionEnv is a Backend whose worker serves deleteBoard and
// testDecisions.
func decisionEnv(t *testing.T, cfg Config) (*Backend, *deleteBoard, *testDecisions) {
	t.Helper()
	return decisionEnvWith(t, cfg, nil, &testDecisions{})
}

// decisionEnvWith is decisionEnv with decided, and more services
// registered by more (if not nil).
func decisionEnvWith(t *testing.T, cfg Config, more func(grpc.ServiceRegistrar), decided *testDecisions) (*Backend, *deleteBoard, *testDecisions) {
	t.Helper()
	board := &deleteBoard{}
	conn := startServices(t, nil, func(r grpc.ServiceRegistrar) {
		taskwirev1.RegisterBoardServiceServer(r, board)
		taskwirev1.RegisterDecisionServiceServer(r, decided)
		if more != nil {
			more(r)
		}
	})
	cfg.States, _ = sealed.NewBox(bytes.Repeat([]byte{7}, sealed.KeySize))
	if cfg.PublicURL == "" {
		cfg.PublicURL = "https://board.example/"
	}
	return newBackend(t, conn, cfg), board, decided
}

var urlCaps = json.RawMessage(`{"elicitation":{"form":{},"url":{}}}`)

// TestAssistantURLElicitation: an assistant is sent to the decision's
// page, whatever forms it could answer, and its call runs only once a
// person approved.
func TestAssistantURLElicitation(t *testing.T) {
	b, board, decided := decisionEnv(t, Config{})
	ask := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: urlCaps}
	res, err := b.CallTool(context.Background(), assistant, ask, nil)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("tasks_delete by an assistant = %+v, %v; want input_required", res, err)
	}
	req := res.InputRequired.InputRequests["confirm"]
	raw, _ := json.Marshal(req.Params)
	want := `{"mode":"url","message":"Delete task T-2? It can be restored later with tasks_restore. Only a person of acme can approve this: open the page, or ask someone who may to approve it there.","url":"https://board.example/t/acme/decisions/D1"}`
	if req.Method != "elicitation/create" || string(raw) != want {
		t.Errorf("input request = %s %s, want elicitation/create %s", req.Method, raw, want)
	}
	mcptest.ValidateMessageAt(t, mcp.Version20260728, raw, "ElicitRequestURLParams")
	state := res.InputRequired.RequestState
	retry := func(answer string) (*mcp.CallToolResult, error) {
		return b.CallTool(context.Background(), assistant, &mcp.ToolCall{
			Name: "tasks_delete", Arguments: ask.Arguments, ClientCapabilities: urlCaps,
			RequestState: state, InputResponses: json.RawMessage(`{"confirm":` + answer + `}`),
		}, nil)
	}
	// The assistant's own "yes" changes nothing while the person has not decided.
	res, err = retry(`{"action":"accept","content":{"confirm":true}}`)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("retry while pending = %+v, %v; want the same elicitation", res, err)
	}
	if again, _ := json.Marshal(res.InputRequired.InputRequests["confirm"].Params); string(again) != want {
		t.Errorf("retry while pending asks %s, want %s", again, want)
	}
	if board.got.Load() != nil || decided.asked() != 1 {
		t.Fatalf("before a decision: worker got %v, %d decisions asked for; want no call, 1 decision", board.got.Load(), decided.asked())
	}
	decided.set("D1", approved, "alice", "")
	res, err = retry(`{"action":"accept"}`)
	if err != nil || res.IsError || res.InputRequired != nil {
		t.Fatalf("retry once approved = %+v, %v; want the delete's result", res, err)
	}
	if got := board.got.Load(); got != "D1" {
		t.Errorf("worker got confirmation %v, want the decision D1", got)
	}
}

func TestAssistantDeclined(t *testing.T) {
	b, board, decided := decisionEnv(t, Config{})
	call := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: urlCaps}
	res, _ := b.CallTool(context.Background(), assistant, call, nil)
	decided.set("D1", declined, "bob", "We still need it.")
	call.RequestState = res.InputRequired.RequestState
	res, err := b.CallTool(context.Background(), assistant, call, nil)
	if err != nil || !res.IsError {
		t.Fatalf("retry once declined = %+v, %v; want isError", res, err)
	}
	if got, want := resultText(t, res), "Not done: bob declined: We still need it. Do not retry unless they ask you to."; got != want {
		t.Errorf("declined text = %q, want %q", got, want)
	}
	if board.got.Load() != nil {
		t.Error("a declined call reached the worker")
	}
}

// TestAssistantExpired: an expired (or unknown) decision is asked anew.
func TestAssistantExpired(t *testing.T) {
	b, _, decided := decisionEnv(t, Config{})
	call := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: urlCaps}
	res, _ := b.CallTool(context.Background(), assistant, call, nil)
	decided.set("D1", taskwirev1.DecisionState_DECISION_STATE_EXPIRED, "", "")
	call.RequestState = res.InputRequired.RequestState
	res, err := b.CallTool(context.Background(), assistant, call, nil)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("retry once expired = %+v, %v; want input_required", res, err)
	}
	if p := res.InputRequired.InputRequests["confirm"].Params.(mcp.ElicitURL); !strings.HasSuffix(p.URL, "/decisions/D2") || p.ElicitationID != "D2" {
		t.Errorf("after expiry asked %+v, want the new decision D2", p)
	}
}

// TestAssistantWithoutURLElicitation: -32021 naming url mode, and the
// decision waits in the console all the same.
func TestAssistantWithoutURLElicitation(t *testing.T) {
	b, _, decided := decisionEnv(t, Config{})
	for _, caps := range []string{`{"elicitation":{}}`, `{"elicitation":{"form":{}}}`, `{}`} {
		call := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: json.RawMessage(caps)}
		_, err := b.CallTool(context.Background(), assistant, call, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability || !strings.Contains(je.Message, "url mode") ||
			!strings.Contains(je.Message, "inbox") {
			t.Errorf("tasks_delete with %s = %v, want -32021 naming url mode and the inbox", caps, err)
			continue
		}
		data, _ := json.Marshal(je.Data)
		if string(data) != `{"requiredCapabilities":{"elicitation":{"url":{}}}}` {
			t.Errorf("-32021 data = %s, want elicitation.url required", data)
		}
	}
	if n := decided.asked(); n != 1 {
		t.Errorf("decisions asked for = %d, want 1 waiting in the inbox", n)
	}
}

// TestPersonKeepsForm: a person calling through their own token answers
// the form, as before.
func TestPersonKeepsForm(t *testing.T) {
	b, _, decided := decisionEnv(t, Config{})
	call := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: urlCaps}
	res, err := b.CallTool(context.Background(), writer, call, nil)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("tasks_delete by a person = %+v, %v", res, err)
	}
	if p, ok := res.InputRequired.InputRequests["confirm"].Params.(map[string]any); !ok || p["mode"] != "form" {
		t.Errorf("a person was asked %+v, want a form", res.InputRequired.InputRequests["confirm"].Params)
	}
	if n := decided.asked(); n != 0 {
		t.Errorf("a person's call asked for %d decisions, want none", n)
	}
}

// TestAwaitDecision: a waiting call hears of the decision on the
// tenant's events, long before the next poll.
func TestAwaitDecision(t *testing.T) {
	sub := &testSubscriber{}
	b, _, decided := decisionEnv(t, Config{Events: sub, DecisionPoll: time.Hour})
	call := &mcp.ToolCall{Name: "tasks_delete", Arguments: json.RawMessage(`{"ref":"T-2"}`), ClientCapabilities: urlCaps}
	if _, err := b.CallTool(context.Background(), assistant, call, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { done <- b.AwaitDecision(ctx, assistant, "D1") }()
	sub.waitSubscribed(t)
	sub.send(events.Event{Kind: events.DecisionsChanged, Ref: "D-other"})
	decided.set("D1", approved, "alice", "")
	sub.send(events.Event{Kind: events.DecisionsChanged, Ref: "D1"})
	if err := <-done; err != nil {
		t.Errorf("AwaitDecision = %v, want nil once decided", err)
	}

	decided.set("D1", pending, "", "")
	short, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if err := b.AwaitDecision(short, assistant, "D1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AwaitDecision of an undecided decision = %v, want the deadline", err)
	}
}

// testSubscriber hands events to the subscribers of acme.
type testSubscriber struct {
	mu   sync.Mutex
	fns  []func(events.Event)
	subs chan struct{}
}

func (s *testSubscriber) Subscribe(tenant string, fn func(events.Event)) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = append(s.fns, fn)
	if s.subs != nil {
		close(s.subs)
		s.subs = nil
	}
	return func() {}, nil
}

func (s *testSubscriber) waitSubscribed(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	if len(s.fns) > 0 {
		s.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	s.subs = ch
	s.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatal("AwaitDecision never subscribed")
	}
}

func (s *testSubscriber) send(ev events.Event) {
	s.mu.Lock()
	fns := append([]func(events.Event){}, s.fns...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// failingBoard answers GetTask with errs[ref].
func failingBoard(errs map[string]error) *testBoard {
	return &testBoard{getTask: func(_ context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
		return nil, errs[req.GetRef()]
	}}
}

func getTask(ref string) json.RawMessage {
	return json.RawMessage(`{"ref":"` + ref + `"}`)
}

func TestBoardFailuresBecomeToolErrors(t *testing.T) {
	errs := map[string]error{
		"T-invalid":  domainerr.New(domainerr.Invalid, "The ref %q does not look like T-12.", "T-invalid"),
		"T-404":      domainerr.New(domainerr.NotFound, "There is no task T-404; call tasks_list to see the refs."),
		"T-conflict": domainerr.Wrap(domainerr.Conflict, errors.New("ent: version mismatch"), "T-conflict changed since you read it; read it again."),
		"T-denied":   domainerr.New(domainerr.PermissionDenied, "Only the task's creator may do that."),
		"T-busy":     domainerr.Wrap(domainerr.Unavailable, errors.New("pq: too many connections"), "database busy"),
		"T-full":     domainerr.New(domainerr.Exhausted, "tenant acme holds 50000 tasks, its quota: delete some"),
		"T-big":      status.Error(codes.ResourceExhausted, "grpc: received message larger than max"),
	}
	b := newBackend(t, startWorker(t, failingBoard(errs), nil), Config{})
	for ref, want := range map[string]string{
		"T-invalid":  `The ref "T-invalid" does not look like T-12.`,
		"T-404":      "There is no task T-404; call tasks_list to see the refs.",
		"T-conflict": "T-conflict changed since you read it; read it again.",
		"T-denied":   "Only the task's creator may do that.",
		"T-busy":     "The board is temporarily unavailable. Try again in a moment.",
		"T-full":     "tenant acme holds 50000 tasks, its quota: delete some", // a quota's sentence
		"T-big":      "The board is temporarily unavailable. Try again in a moment.",
	} {
		res, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "tasks_get", Arguments: getTask(ref)}, nil)
		if err != nil {
			t.Errorf("CallTool(tasks_get %s) error = %v, want an isError result", ref, err)
			continue
		}
		if !res.IsError || res.StructuredContent != nil {
			t.Errorf("CallTool(tasks_get %s) = isError %v, structuredContent %s; want isError and no structuredContent", ref, res.IsError, res.StructuredContent)
		}
		if got := resultText(t, res); got != want {
			t.Errorf("CallTool(tasks_get %s) text = %q, want %q", ref, got, want)
		}
	}
}

// A caller the worker no longer accepts (token revoked, member gone) is
// not a tool result: the front door answers 401 so the client re-authenticates.
func TestRevokedCallerIsAnAuthError(t *testing.T) {
	errs := map[string]error{"T-1": domainerr.New(domainerr.Unauthenticated, "this token was revoked")}
	b := newBackend(t, startWorker(t, failingBoard(errs), nil), Config{})
	_, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "tasks_get", Arguments: getTask("T-1")}, nil)
	var re *mcp.RevokedError
	if !errors.As(err, &re) || re.Reason != "this token was revoked" {
		t.Errorf("CallTool by a revoked caller = %v, want a RevokedError with the worker's reason", err)
	}
}

func TestInternalFailureIsAnError(t *testing.T) {
	errs := map[string]error{
		"T-kind":  domainerr.Wrap(domainerr.Internal, errors.New("disk on fire"), "oops"),
		"T-plain": errors.New("nil pointer somewhere"),
	}
	b := newBackend(t, startWorker(t, failingBoard(errs), nil), Config{})
	for ref := range errs {
		res, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "tasks_get", Arguments: getTask(ref)}, nil)
		if err == nil {
			t.Errorf("CallTool(tasks_get %s) = %+v, nil; want an error (sent as -32603)", ref, res)
			continue
		}
		var je *jsonrpc.Error
		var se *mcp.ScopeError
		if res != nil || errors.As(err, &je) || errors.As(err, &se) || errors.Is(err, context.Canceled) {
			t.Errorf("CallTool(tasks_get %s) = %+v, %v; want no result and a plain error", ref, res, err)
		}
		if strings.Contains(err.Error(), "disk on fire") || strings.Contains(err.Error(), "nil pointer") {
			t.Errorf("CallTool(tasks_get %s) error = %v, want the worker to have hidden the cause", ref, err)
		}
	}
}

// blockingBoard's GetTask signals entered and waits for its context.
func blockingBoard(entered chan<- struct{}) *testBoard {
	return &testBoard{getTask: func(ctx context.Context, _ *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
		entered <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

func TestClientCancels(t *testing.T) {
	entered := make(chan struct{}, 1)
	b := newBackend(t, startWorker(t, blockingBoard(entered), nil), Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := b.CallTool(ctx, reader, &mcp.ToolCall{Name: "tasks_get", Arguments: getTask("T-1")}, nil)
		done <- outcome{res, err}
	}()
	<-entered
	cancel()
	got := <-done
	if got.res != nil || !errors.Is(got.err, context.Canceled) {
		t.Errorf("CallTool after the client cancelled = %+v, %v; want nil, context.Canceled", got.res, got.err)
	}
}

func TestCallTimeout(t *testing.T) {
	entered := make(chan struct{}, 1)
	b := newBackend(t, startWorker(t, blockingBoard(entered), nil), Config{CallTimeout: 50 * time.Millisecond})
	res, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "tasks_get", Arguments: getTask("T-1")}, nil)
	if err != nil {
		t.Fatalf("CallTool past CallTimeout = %v, want an isError result", err)
	}
	if text := resultText(t, res); !res.IsError || !strings.Contains(text, "tasks_get did not finish in time") {
		t.Errorf("CallTool past CallTimeout = isError %v, %q; want isError saying tasks_get did not finish in time", res.IsError, text)
	}
}

// TestAccessUnavailable: when no worker can say what the caller may do
// (tools/list, or the access check before a call), the client gets a
// *mcp.UnavailableError, which the front door answers 503 saying to try
// again, not a neutral internal error.
func TestAccessUnavailable(t *testing.T) {
	for _, code := range []codes.Code{codes.Unavailable, codes.DeadlineExceeded} {
		var ue *mcp.UnavailableError
		if err := accessFailure(status.Error(code, "connection refused")); !errors.As(err, &ue) {
			t.Errorf("accessFailure(%v) = %v, want an *mcp.UnavailableError", code, err)
		}
	}
	var je *jsonrpc.Error
	if err := accessFailure(status.Error(codes.Internal, "boom")); errors.As(err, &je) {
		t.Errorf("accessFailure(Internal) = %v, want an error the front door hides", err)
	}
}

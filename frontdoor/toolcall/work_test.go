package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// workQueue records the confirmation of each ApproveWork it serves.
type workQueue struct {
	taskwirev1.UnimplementedWorkServiceServer
	got atomic.Value
}

func (w *workQueue) ApproveWork(_ context.Context, req *taskwirev1.ApproveWorkRequest) (*taskwirev1.ApproveWorkResponse, error) {
	w.got.Store(req.GetConfirmation())
	return &taskwirev1.ApproveWorkResponse{Work: &taskwirev1.Work{Ref: req.GetRef(), State: "approved", Plan: req.GetPlan()}}, nil
}

// TestWorkApproveAsksAssistantsOnly: work_approve asks a person only when
// an assistant calls it; a person's own call runs unasked. An assistant
// whose client cannot open the decision's page runs on the approval a
// person gave in the inbox when it calls again.
func TestWorkApproveAsksAssistantsOnly(t *testing.T) {
	b, queue, decided := workEnv(t)
	call := func(caps string) *mcp.ToolCall {
		return &mcp.ToolCall{Name: "work_approve", Arguments: json.RawMessage(`{"ref":"T-2","plan":"Fix it."}`), ClientCapabilities: json.RawMessage(caps)}
	}
	res, err := b.CallTool(context.Background(), writer, call(string(urlCaps)), nil)
	if err != nil || res.InputRequired != nil || res.IsError {
		t.Fatalf("work_approve by a person = %+v, %v; want it run", res, err)
	}
	if got := queue.got.Load(); got != "" || decided.asked() != 0 {
		t.Errorf("a person's work_approve ran with confirmation %q after %d decisions, want none and none", got, decided.asked())
	}

	queue.got = atomic.Value{}
	res, err = b.CallTool(context.Background(), assistant, call(string(urlCaps)), nil)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("work_approve by an assistant = %+v, %v; want input_required", res, err)
	}
	raw, _ := json.Marshal(res.InputRequired.InputRequests["confirm"].Params)
	if want := `"url":"https://board.example/t/acme/decisions/D1"`; !strings.Contains(string(raw), `"mode":"url"`) || !strings.Contains(string(raw), want) {
		t.Errorf("the assistant was asked %s, want the decision's page (%s)", raw, want)
	}
	if got := queue.got.Load(); got != nil {
		t.Errorf("work_approve ran for the assistant before a person decided (confirmation %q)", got)
	}

	_, err = b.CallTool(context.Background(), assistant, call(`{}`), nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability {
		t.Fatalf("work_approve by an assistant without URL elicitation = %v, want -32021", err)
	}
	decided.set("D1", approved, "alice", "")
	if res, err := b.CallTool(context.Background(), assistant, call(`{}`), nil); err != nil || res.IsError {
		t.Fatalf("work_approve after the inbox approval = %+v, %v; want it run", res, err)
	}
	if got := queue.got.Load(); got != "D1" {
		t.Errorf("work_approve ran with confirmation %v, want the approved decision D1", got)
	}
}

// workEnv is a Backend whose worker serves workQueue and testDecisions.
func workEnv(t *testing.T) (*Backend, *workQueue, *testDecisions) {
	t.Helper()
	cat, err := catalog.New(taskwirev1.SourceDescriptor, taskwirev1.WorkService_ServiceDesc.ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	queue, decided := &workQueue{}, &testDecisions{}
	b, _, _ := decisionEnvWith(t, Config{Catalog: cat}, func(r grpc.ServiceRegistrar) {
		taskwirev1.RegisterWorkServiceServer(r, queue)
	}, decided)
	return b, queue, decided
}

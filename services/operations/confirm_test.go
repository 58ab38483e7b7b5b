package operations_test

import (
	"context"
	"testing"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestConfirmWaits: an operation started with a question to confirm
// waits INPUT_REQUIRED, the question as its status message and its
// request kept, on a method that may not otherwise run in the
// background; refused, it completes with the refusal as its error, the
// call never made. One cannot wait for both a decision and a question.
func TestConfirmWaits(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		boot, err := tenancy.Bootstrap(context.Background(), c, tenancy.Config{TenantSlug: "acme", OwnerHandle: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		alice := as("acme", boot.Owner)
		runner := newHeldRunner()
		s := worker(t, c, runner, nil)
		raw, err := proto.Marshal(&taskwirev1.DeleteTaskRequest{Ref: "T-1"})
		if err != nil {
			t.Fatal(err)
		}
		const q = "Delete task T-1?"
		start := &taskwirev1.StartOperationRequest{Method: taskwirev1.BoardService_DeleteTask_FullMethodName, Request: raw, Confirm: q}
		resp, err := s.StartOperation(alice, start)
		if err != nil {
			t.Fatalf("StartOperation with a question = %v", err)
		}
		op := stateOf(t, s, alice, resp.GetOperation().GetId())
		if op.GetState() != taskwirev1.OperationState_OPERATION_STATE_INPUT_REQUIRED || op.GetStatusMessage() != q ||
			!proto.Equal(mustRequest(t, op.GetRequest()), &taskwirev1.DeleteTaskRequest{Ref: "T-1"}) || len(op.GetResponse()) > 0 {
			t.Fatalf("operation waiting for a confirmation = %v, want input_required with the question and the request", op)
		}

		refusal, err := proto.Marshal(status.New(codes.PermissionDenied, "Not done: no.").Proto())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateOperation(alice, &taskwirev1.UpdateOperationRequest{Id: op.GetId(), Refusal: refusal}); err != nil {
			t.Fatalf("UpdateOperation with a refusal = %v", err)
		}
		op = stateOf(t, s, alice, op.GetId())
		if op.GetState() != taskwirev1.OperationState_OPERATION_STATE_COMPLETED || len(op.GetRequest()) > 0 {
			t.Errorf("refused operation = %v, want completed without its request", op)
		}
		var sp spb.Status
		if err := proto.Unmarshal(op.GetError(), &sp); err != nil || sp.GetCode() != int32(codes.PermissionDenied) || sp.GetMessage() != "Not done: no." {
			t.Errorf("refused operation's error = %v, %v; want the refusal", &sp, err)
		}
		runner.mu.Lock()
		ran := len(runner.ended)
		runner.mu.Unlock()
		if ran != 0 {
			t.Errorf("the refused call ran %d times, want never", ran)
		}

		start.Confirm = ""
		if _, err := s.StartOperation(alice, start); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("StartOperation of DeleteTask with nothing to wait for = %v, want Invalid", err)
		}
		start.Confirm, start.DecisionId = q, "D1"
		if _, err := s.StartOperation(alice, start); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("StartOperation with a decision and a question = %v, want Invalid", err)
		}
	})
}

func mustRequest(t *testing.T, raw []byte) *taskwirev1.DeleteTaskRequest {
	t.Helper()
	var r taskwirev1.DeleteTaskRequest
	if err := proto.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

package operations

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/operation"
)

// GetOperation returns one operation of the caller.
func (s *Service) GetOperation(ctx context.Context, req *taskwirev1.GetOperationRequest) (*taskwirev1.GetOperationResponse, error) {
	return call(ctx, s, req, s.get)
}

func (s *Service) get(ctx context.Context, c caller, req *taskwirev1.GetOperationRequest) (*taskwirev1.GetOperationResponse, error) {
	op, err := s.find(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	switch {
	case op.State == operation.StateWorking && op.LeaseUntil.Before(s.now()) && !s.runsHere(op.Key):
		op, err = s.lapse(ctx, op)
	case op.State == operation.StateInputRequired && op.Decision != "":
		op, err = s.advance(ctx, c, op)
	}
	if err != nil {
		return nil, err
	}
	return &taskwirev1.GetOperationResponse{Operation: s.toProto(op)}, nil
}

// runsHere tells whether operation key runs on this worker: its lease
// may lapse while it runs, when renewing it waits behind the call's own
// transaction (on SQLite, one writer at a time), but it is not lost.
func (s *Service) runsHere(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.running[key]
	return ok
}

// find returns the caller's operation key. Another member's operation is
// not found, exactly like one that never existed.
func (s *Service) find(ctx context.Context, c caller, key string) (*ent.Operation, error) {
	op, err := s.cfg.Client.Operation.Query().
		Where(operation.TenantID(c.tenantID), operation.MemberID(c.memberID), operation.Key(key)).
		Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !s.now().Before(op.ExpiresAt)) {
		return nil, domainerr.New(domainerr.NotFound, "No MCP task %q is known to you: it never existed or has expired. Make the call again.", key)
	}
	return op, err
}

// lapse records that working operation op lost its worker: its lease
// ran out, so no worker runs it and its transaction rolled back. It
// returns the operation as it now stands (completed, should its worker
// have finished it meanwhile).
func (s *Service) lapse(ctx context.Context, op *ent.Operation) (*ent.Operation, error) {
	st, err := statusBytes(status.New(codes.Unavailable, lostMessage))
	if err != nil {
		return nil, err
	}
	err = s.cfg.Client.Operation.Update().
		Where(operation.ID(op.ID), operation.StateEQ(operation.StateWorking), operation.LeaseUntilLT(s.now())).
		SetState(operation.StateFailed).SetError(st).SetStatusMessage(lostMessage).SetUpdatedAt(s.now()).
		Exec(ctx)
	if err != nil {
		return nil, err
	}
	return s.cfg.Client.Operation.Get(ctx, op.ID)
}

// states maps the database's states to the contract's.
var states = map[operation.State]taskwirev1.OperationState{
	operation.StateWorking:       taskwirev1.OperationState_OPERATION_STATE_WORKING,
	operation.StateInputRequired: taskwirev1.OperationState_OPERATION_STATE_INPUT_REQUIRED,
	operation.StateCompleted:     taskwirev1.OperationState_OPERATION_STATE_COMPLETED,
	operation.StateFailed:        taskwirev1.OperationState_OPERATION_STATE_FAILED,
	operation.StateCancelled:     taskwirev1.OperationState_OPERATION_STATE_CANCELLED,
}

func (s *Service) toProto(op *ent.Operation) *taskwirev1.Operation {
	out := &taskwirev1.Operation{
		Id: op.Key, Method: op.Method, State: states[op.State], StatusMessage: op.StatusMessage,
		CreateTime: timestamppb.New(op.CreatedAt), UpdateTime: timestamppb.New(op.UpdatedAt),
		TtlMs:          op.ExpiresAt.Sub(op.CreatedAt).Milliseconds(),
		PollIntervalMs: s.cfg.PollInterval.Milliseconds(),
		DecisionId:     op.Decision,
	}
	if op.Response != nil {
		out.Response = *op.Response
	}
	if op.Error != nil {
		out.Error = *op.Error
	}
	if op.State == operation.StateInputRequired && op.Decision == "" {
		if op.Request != nil {
			out.Request = *op.Request
		}
		if op.InputResponses != nil {
			out.InputResponses = *op.InputResponses
		}
	}
	return out
}

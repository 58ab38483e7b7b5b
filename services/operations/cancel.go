package operations

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent/operation"
)

// CancelOperation asks for the caller's operation to stop. The worker
// running it stops it at once when it is this one, else at its next
// lease renewal (within Lease/5), when it reads cancel_requested.
func (s *Service) CancelOperation(ctx context.Context, req *taskwirev1.CancelOperationRequest) (*taskwirev1.CancelOperationResponse, error) {
	return call(ctx, s, req, s.cancel)
}

func (s *Service) cancel(ctx context.Context, c caller, req *taskwirev1.CancelOperationRequest) (*taskwirev1.CancelOperationResponse, error) {
	op, err := s.find(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	if op.State == operation.StateInputRequired { // nothing runs: it ends here
		err := s.cfg.Client.Operation.Update().
			Where(operation.ID(op.ID), operation.StateEQ(operation.StateInputRequired)).
			SetState(operation.StateCancelled).SetStatusMessage(cancelledMessage).ClearRequest().SetUpdatedAt(s.now()).
			Exec(ctx)
		if err != nil {
			return nil, err
		}
		op, err = s.find(ctx, c, req.GetId())
		if err != nil {
			return nil, err
		}
	}
	if op.State != operation.StateWorking {
		return &taskwirev1.CancelOperationResponse{}, nil // finished: nothing to stop
	}
	// Stopped here first when it runs here: its transaction rolls back
	// and frees what it holds (on SQLite, the write lock the update
	// below waits for).
	s.mu.Lock()
	stop, here := s.running[op.Key]
	if here {
		stop(errCancelled)
	}
	s.mu.Unlock()
	err = s.cfg.Client.Operation.Update().
		Where(operation.ID(op.ID), operation.StateEQ(operation.StateWorking)).
		SetCancelRequested(true).SetUpdatedAt(s.now()).
		Exec(ctx)
	if err != nil && !here {
		return nil, err
	}
	return &taskwirev1.CancelOperationResponse{}, nil
}

package operations

import (
	"context"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent/operation"
)

// UpdateOperation records the client's answers to the caller's operation
// waiting for them, or resumes it with the request that carries them all,
// or completes it with the refusal it is given.
func (s *Service) UpdateOperation(ctx context.Context, req *taskwirev1.UpdateOperationRequest) (*taskwirev1.UpdateOperationResponse, error) {
	return call(ctx, s, req, s.update)
}

func (s *Service) update(ctx context.Context, c caller, req *taskwirev1.UpdateOperationRequest) (*taskwirev1.UpdateOperationResponse, error) {
	op, err := s.find(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	if op.State != operation.StateInputRequired || op.Decision != "" {
		return &taskwirev1.UpdateOperationResponse{}, nil // nothing of the client's to wait for
	}
	if raw := req.GetRefusal(); len(raw) > 0 {
		var sp spb.Status
		if err := proto.Unmarshal(raw, &sp); err != nil {
			return nil, domainerr.New(domainerr.Invalid, "the refusal cannot be read: %v", err)
		}
		_, err := s.refuse(ctx, op, status.FromProto(&sp))
		return &taskwirev1.UpdateOperationResponse{}, err
	}
	waiting := s.cfg.Client.Operation.Update().
		Where(operation.ID(op.ID), operation.StateEQ(operation.StateInputRequired)).
		SetUpdatedAt(s.now())
	if req.GetRequest() == nil {
		return &taskwirev1.UpdateOperationResponse{}, waiting.SetInputResponses(req.GetInputResponses()).Exec(ctx)
	}
	in, out, ok := messagesOf(op.Method)
	if !ok {
		return nil, domainerr.New(domainerr.Invalid, "%s cannot run in the background", op.Method)
	}
	if err := proto.Unmarshal(req.GetRequest(), in); err != nil {
		return nil, domainerr.New(domainerr.Invalid, "the request of %s cannot be read: %v", op.Method, err)
	}
	s.mu.Lock()
	runner, stopped := s.runner, s.stopped
	s.mu.Unlock()
	if runner == nil || stopped {
		return nil, domainerr.New(domainerr.Unavailable, "This worker cannot run calls in the background just now: try again.")
	}
	now := s.now()
	n, err := waiting.SetState(operation.StateWorking).SetStatusMessage(workingMessage).
		ClearRequest().ClearResponse().ClearInputResponses().SetLeaseUntil(now.Add(s.cfg.Lease)).
		Save(ctx)
	if err != nil || n == 0 { // another update resumed it first
		return &taskwirev1.UpdateOperationResponse{}, err
	}
	if op, err = s.cfg.Client.Operation.Get(ctx, op.ID); err != nil {
		return nil, err
	}
	s.launch(op, c, runner, forwarded(ctx), in, out)
	return &taskwirev1.UpdateOperationResponse{}, nil
}

package operations

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/operation"
	"github.com/taskwire/taskwire/services/decisions"
)

// An operation that waits for a person's decision holds its request and
// runs nothing. No worker watches it: whichever worker a client's poll
// reaches reads the decision, and once a person approved it starts the
// call itself, as the poller (the member who started it: no other member
// finds the operation). The request carries the decision as its
// confirmation, which the worker running the change uses up in the same
// transaction, so the call runs once however many pollers race.

// waitingDecision returns the pending decision key of member c that an
// operation may wait for, with its question.
func (s *Service) waitingDecision(ctx context.Context, c caller, key string) (*ent.Decision, error) {
	d, err := s.cfg.Client.Decision.Query().
		Where(decision.TenantID(c.tenantID), decision.Key(key), decision.RequestedBy(c.memberID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.New(domainerr.Invalid, "no decision %q was asked for by you", key)
	}
	if err != nil {
		return nil, err
	}
	if st := decisions.StateAt(d, s.now()); st != taskwirev1.DecisionState_DECISION_STATE_PENDING {
		return nil, domainerr.New(domainerr.Invalid, "decision %q is no longer pending", key)
	}
	return d, nil
}

// advance moves op, waiting for its decision, on when the decision was
// made, and returns the operation as it now stands.
func (s *Service) advance(ctx context.Context, c caller, op *ent.Operation) (*ent.Operation, error) {
	d, err := s.cfg.Client.Decision.Query().Where(decision.TenantID(c.tenantID), decision.Key(op.Decision)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var refusal *status.Status
	switch st := taskwirev1.DecisionState_DECISION_STATE_UNSPECIFIED; {
	case d != nil:
		st = decisions.StateAt(d, s.now())
		switch st {
		case taskwirev1.DecisionState_DECISION_STATE_PENDING:
			return op, nil
		case taskwirev1.DecisionState_DECISION_STATE_APPROVED:
			return s.run(ctx, c, op)
		case taskwirev1.DecisionState_DECISION_STATE_DECLINED:
			who, err := s.handle(ctx, c, d.DecidedBy)
			if err != nil {
				return nil, err
			}
			refusal = status.New(codes.PermissionDenied, fmt.Sprintf("Not done: %s declined: %s. Do not retry unless they ask you to.", who, strings.TrimRight(d.Reason, ". ")))
		case taskwirev1.DecisionState_DECISION_STATE_EXPIRED:
			refusal = status.New(codes.FailedPrecondition, "Not done: no person decided before the decision expired. Call the tool again to ask anew.")
		default: // used by another call of the same arguments
			refusal = status.New(codes.FailedPrecondition, "Not done here: the person's approval was used by another call of the same tool and arguments.")
		}
	default:
		refusal = status.New(codes.FailedPrecondition, "Not done: the decision this call waited for is gone. Call the tool again to ask anew.")
	}
	return s.refuse(ctx, op, refusal)
}

// handle is the handle of member id of c's tenant, "a person" if unknown.
func (s *Service) handle(ctx context.Context, c caller, id *int) (string, error) {
	if id == nil {
		return "a person", nil
	}
	m, err := s.cfg.Client.Member.Query().Where(member.TenantID(c.tenantID), member.ID(*id)).Only(ctx)
	if ent.IsNotFound(err) {
		return "a person", nil
	}
	if err != nil {
		return "", err
	}
	return m.Handle, nil
}

// refuse completes waiting operation op with the refusal st, as the call
// would have answered it.
func (s *Service) refuse(ctx context.Context, op *ent.Operation, st *status.Status) (*ent.Operation, error) {
	raw, err := statusBytes(st)
	if err != nil {
		return nil, err
	}
	err = s.cfg.Client.Operation.Update().
		Where(operation.ID(op.ID), operation.StateEQ(operation.StateInputRequired)).
		SetState(operation.StateCompleted).SetError(raw).SetStatusMessage("The call was not made.").
		ClearRequest().SetUpdatedAt(s.now()).
		Exec(ctx)
	if err != nil {
		return nil, err
	}
	return s.cfg.Client.Operation.Get(ctx, op.ID)
}

// run claims waiting operation op, whose decision was approved, and
// starts its call on this worker; a poller that lost the claim to
// another reads the operation as the winner left it.
func (s *Service) run(ctx context.Context, c caller, op *ent.Operation) (*ent.Operation, error) {
	s.mu.Lock()
	runner, stopped := s.runner, s.stopped
	s.mu.Unlock()
	if runner == nil || stopped {
		return op, nil // still waiting; the next poll finds another worker
	}
	in, out, ok := messagesOf(op.Method)
	if !ok || op.Request == nil {
		return s.refuse(ctx, op, status.New(codes.FailedPrecondition, "Not done: this call cannot be resumed. Call the tool again."))
	}
	if err := proto.Unmarshal(*op.Request, in); err != nil {
		return nil, err
	}
	now := s.now()
	n, err := s.cfg.Client.Operation.Update().
		Where(operation.ID(op.ID), operation.StateEQ(operation.StateInputRequired)).
		SetState(operation.StateWorking).SetStatusMessage(workingMessage).ClearRequest().
		SetLeaseUntil(now.Add(s.cfg.Lease)).SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if op, err = s.cfg.Client.Operation.Get(ctx, op.ID); err != nil || n == 0 {
		return op, err
	}
	s.launch(op, c, runner, forwarded(ctx), in, out)
	return op, nil
}

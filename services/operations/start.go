package operations

import (
	"context"
	"crypto/rand"
	"slices"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent/operation"
)

// StartOperation records the operation, starts it on this worker and
// returns it, working; or, with a decision, records it waiting for the
// decision (see advance); or, with a question to confirm, records it
// waiting for the client's answer (see update).
func (s *Service) StartOperation(ctx context.Context, req *taskwirev1.StartOperationRequest) (*taskwirev1.StartOperationResponse, error) {
	return call(ctx, s, req, s.start)
}

func (s *Service) start(ctx context.Context, c caller, req *taskwirev1.StartOperationRequest) (*taskwirev1.StartOperationResponse, error) {
	in, out, ok := messagesOf(req.GetMethod())
	waits := req.GetDecisionId() != "" || req.GetConfirm() != ""
	if !ok || (!Background[req.GetMethod()] && !waits) {
		return nil, domainerr.New(domainerr.Invalid, "%s cannot run in the background: call it directly", req.GetMethod())
	}
	if req.GetDecisionId() != "" && req.GetConfirm() != "" {
		return nil, domainerr.New(domainerr.Invalid, "an operation waits for a person's decision or for the client's confirmation, not both")
	}
	if err := proto.Unmarshal(req.GetRequest(), in); err != nil {
		return nil, domainerr.New(domainerr.Invalid, "the request of %s cannot be read: %v", req.GetMethod(), err)
	}
	s.mu.Lock()
	runner, stopped := s.runner, s.stopped
	s.mu.Unlock()
	if runner == nil || stopped {
		return nil, domainerr.New(domainerr.Unavailable, "This worker cannot run calls in the background just now: try again.")
	}
	now := s.now()
	// Expired operations of the tenant go as new ones come: nobody may
	// read them any more, and their results can be large.
	if _, err := s.cfg.Client.Operation.Delete().Where(operation.TenantID(c.tenantID), operation.ExpiresAtLT(now)).Exec(ctx); err != nil {
		return nil, err
	}
	create := s.cfg.Client.Operation.Create().
		SetTenantID(c.tenantID).SetMemberID(c.memberID).SetKey(rand.Text()).SetMethod(req.GetMethod()).
		SetStatusMessage(workingMessage).SetCreatedAt(now).SetUpdatedAt(now).
		SetLeaseUntil(now.Add(s.cfg.Lease)).SetExpiresAt(now.Add(s.cfg.TTL))
	if id := req.GetDecisionId(); id != "" {
		d, err := s.waitingDecision(ctx, c, id)
		if err != nil {
			return nil, err
		}
		op, err := create.SetState(operation.StateInputRequired).SetDecision(id).SetRequest(req.GetRequest()).
			SetStatusMessage(d.Question).Save(ctx)
		if err != nil {
			return nil, err
		}
		return &taskwirev1.StartOperationResponse{Operation: s.toProto(op)}, nil
	}
	if q := req.GetConfirm(); q != "" {
		op, err := create.SetState(operation.StateInputRequired).SetRequest(req.GetRequest()).SetStatusMessage(q).Save(ctx)
		if err != nil {
			return nil, err
		}
		return &taskwirev1.StartOperationResponse{Operation: s.toProto(op)}, nil
	}
	op, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	s.launch(op, c, runner, forwarded(ctx), in, out)
	return &taskwirev1.StartOperationResponse{Operation: s.toProto(op)}, nil
}

// workingMessage is the status message of a working operation.
const workingMessage = "The call is running."

// forwarded is the metadata the front door sent with StartOperation,
// less what the transport and the credentials add: the call the
// operation makes carries the same caller, session label and trace, so
// the worker's chain checks and records it as the front door's own call.
func forwarded(ctx context.Context) metadata.MD {
	in, _ := metadata.FromIncomingContext(ctx)
	md := metadata.MD{}
	for k, v := range in {
		if strings.HasPrefix(k, ":") || strings.HasPrefix(k, "grpc-") ||
			k == "content-type" || k == "user-agent" || k == identity.MDInternalKey {
			continue
		}
		md[k] = slices.Clone(v)
	}
	return md
}

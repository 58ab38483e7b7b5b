package audit

import (
	"context"
	"errors"
	"math"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/access"
)

// listRule is what the proto declares of audit_list. Its min_role is
// the weakest role that may read the audit log (admin): the worker refuses
// weaker roles and tools/list hides the tool from them; ListAudit checks
// again, so the rule holds wherever the service is served.
var listRule = methods.Must(taskwirev1.AuditService_ListAudit_FullMethodName)

// errNoAccess is a worker serving this service without an access resolver:
// a deployment mistake, which the worker reports as Internal.
var errNoAccess = errors.New("audit: no Access in the call's context; the worker needs an access resolver")

// ListAudit implements the audit_list tool: a page of the caller's
// tenant's audit log, for owners and admins.
func (s *Store) ListAudit(ctx context.Context, req *taskwirev1.ListAuditRequest) (*taskwirev1.ListAuditResponse, error) {
	a, ok := identity.AccessFrom(ctx)
	if !ok {
		return nil, errNoAccess
	}
	if !authz.AtLeast(a.Role, listRule.MinRole) {
		r := listRule.Refusal(a.Role, a.Tenant)
		return nil, domainerr.New(domainerr.PermissionDenied, "%s", domainerr.Safe(r.LeastRoleSentence(listRule.MinRole)))
	}
	f := Filter{Member: req.GetMember(), Tool: req.GetTool(), Outcome: req.GetOutcome()}
	if f.Member == "me" {
		f.Member = a.Handle
	}
	if req.GetSince() != nil {
		f.Since = req.GetSince().AsTime()
	}
	if req.GetUntil() != nil {
		f.Until = req.GetUntil().AsTime()
	}
	events, next, err := s.List(ctx, a.Tenant, f, req.GetCursor(), int(req.GetLimit()))
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListAuditResponse{NextCursor: next, Items: make([]*taskwirev1.AuditEvent, len(events))}
	for i, e := range events {
		resp.Items[i] = eventProto(e)
	}
	return resp, nil
}

func eventProto(e Event) *taskwirev1.AuditEvent {
	return &taskwirev1.AuditEvent{
		OccurredAt: timestamppb.New(e.OccurredAt), Member: e.Member, Kind: access.Kinds[e.Kind], Sponsor: e.Sponsor,
		TokenId: e.TokenID, SessionLabel: e.SessionLabel, Tool: e.Tool, Method: e.Method, Targets: e.Targets,
		Outcome: e.Outcome, Error: e.Error, TraceId: e.TraceID, DurationMs: int32(min(e.Duration.Milliseconds(), math.MaxInt32)), Operator: e.Kind == KindOperator,
	}
}

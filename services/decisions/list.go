package decisions

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
	"github.com/taskwire/taskwire/internal/ent/predicate"
)

// How many decisions one list returns.
const (
	defaultLimit = 50
	maxLimit     = 200
)

// ListDecisions lists the tenant's decisions, newest first; people only:
// an assistant has no inbox, it asks.
func (s *Service) ListDecisions(ctx context.Context, req *taskwirev1.ListDecisionsRequest) (*taskwirev1.ListDecisionsResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, c caller, req *taskwirev1.ListDecisionsRequest) (*taskwirev1.ListDecisionsResponse, error) {
		if !c.human() {
			return nil, domainerr.New(domainerr.PermissionDenied, "only people list decisions: %s is an assistant; ask for one with the tool that needs it", c.Handle)
		}
		limit := int(req.GetLimit())
		switch {
		case limit < 0 || limit > maxLimit:
			return nil, domainerr.New(domainerr.Invalid, "limit %d is out of range: pass 1 to %d, or 0 for %d", limit, maxLimit, defaultLimit)
		case limit == 0:
			limit = defaultLimit
		}
		q := s.cfg.Client.Decision.Query().Where(decision.TenantID(c.TenantID))
		if p := inState(req.GetState(), s.now()); p != nil {
			q.Where(p)
		}
		ds, err := q.Order(ent.Desc(decision.FieldCreatedAt), ent.Desc(decision.FieldID)).Limit(limit).All(ctx)
		if err != nil {
			return nil, err
		}
		ps, err := s.protos(ctx, c, ds)
		return &taskwirev1.ListDecisionsResponse{Decisions: ps}, err
	})
}

// inState is the condition of decisions in state st at now (see StateAt);
// nil for any state.
func inState(st taskwirev1.DecisionState, now time.Time) predicate.Decision {
	live, over := decision.ExpiresAtGT(now), decision.ExpiresAtLTE(now)
	switch st {
	case taskwirev1.DecisionState_DECISION_STATE_PENDING:
		return decision.And(decision.StateEQ(decision.StatePending), live)
	case taskwirev1.DecisionState_DECISION_STATE_APPROVED:
		return decision.And(decision.StateEQ(decision.StateApproved), decision.UsedAtIsNil(), live)
	case taskwirev1.DecisionState_DECISION_STATE_DECLINED:
		return decision.StateEQ(decision.StateDeclined)
	case taskwirev1.DecisionState_DECISION_STATE_USED:
		return decision.And(decision.StateEQ(decision.StateApproved), decision.UsedAtNotNil())
	case taskwirev1.DecisionState_DECISION_STATE_EXPIRED:
		return decision.And(decision.StateNEQ(decision.StateDeclined), decision.UsedAtIsNil(), over)
	}
	return nil
}

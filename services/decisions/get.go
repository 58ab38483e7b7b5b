package decisions

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
)

// GetDecision returns one decision of the caller's tenant; an assistant
// sees only those it asked for.
func (s *Service) GetDecision(ctx context.Context, req *taskwirev1.GetDecisionRequest) (*taskwirev1.GetDecisionResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, c caller, req *taskwirev1.GetDecisionRequest) (*taskwirev1.GetDecisionResponse, error) {
		d, err := find(ctx, s.cfg.Client, c, req.GetId())
		if err != nil {
			return nil, err
		}
		p, err := s.proto(ctx, c, d)
		return &taskwirev1.GetDecisionResponse{Decision: p}, err
	})
}

// find returns decision id of the caller's tenant. An assistant is told
// of another member's decision what it is told of one that does not
// exist.
func find(ctx context.Context, client *ent.Client, c caller, id string) (*ent.Decision, error) {
	if id == "" {
		return nil, domainerr.New(domainerr.Invalid, "id is empty: name the decision, as its page's address does")
	}
	q := client.Decision.Query().Where(decision.TenantID(c.TenantID), decision.Key(id))
	if !c.human() {
		q.Where(decision.RequestedBy(c.MemberID))
	}
	d, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.New(domainerr.NotFound, "no decision %q in tenant %s", id, c.Tenant)
	}
	return d, err
}

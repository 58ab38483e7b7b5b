package decisions

import (
	"context"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
	"github.com/taskwire/taskwire/internal/store"
)

// maxReason bounds a decider's reason, which the assistant reads.
const maxReason = 500

// Decide approves or declines a pending decision: only a person may, with
// a role (and token) that permits the tool, and never for a call they
// asked for themselves.
func (s *Service) Decide(ctx context.Context, req *taskwirev1.DecideRequest) (*taskwirev1.DecideResponse, error) {
	var tenant string
	resp, err := call(ctx, s, req, func(ctx context.Context, c caller, req *taskwirev1.DecideRequest) (*taskwirev1.DecideResponse, error) {
		tenant = c.Tenant
		d, err := s.decide(ctx, c, req)
		if err != nil {
			return nil, err
		}
		p, err := s.proto(ctx, c, d)
		return &taskwirev1.DecideResponse{Decision: p}, err
	})
	if err == nil {
		s.changed(ctx, tenant, resp.Decision.GetId())
	}
	return resp, err
}

func (s *Service) decide(ctx context.Context, c caller, req *taskwirev1.DecideRequest) (*ent.Decision, error) {
	if err := checkDecide(c, req); err != nil {
		return nil, err
	}
	var out *ent.Decision
	err := store.WithTx(ctx, s.cfg.Client, func(tx *ent.Tx) error {
		d, err := find(ctx, tx.Client(), c, req.GetId())
		if err != nil {
			return err
		}
		if err := mayDecide(c, d); err != nil {
			return err
		}
		now := s.now()
		if st := StateAt(d, now); st != taskwirev1.DecisionState_DECISION_STATE_PENDING {
			return domainerr.New(domainerr.Conflict, "decision %s is %s already: only a pending decision can be decided", d.Key, stateWord(st))
		}
		state, action := decision.StateDeclined, ActionDeclined
		if req.GetApprove() {
			state, action = decision.StateApproved, ActionApproved
		}
		// The guard on the state keeps two people deciding at once from
		// both succeeding: the second updates nothing.
		n, err := tx.Decision.Update().Where(decision.ID(d.ID), decision.TenantID(c.TenantID), decision.StateEQ(decision.StatePending)).
			SetState(state).SetDecidedBy(c.MemberID).SetDecidedAt(now).SetReason(req.GetReason()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return domainerr.New(domainerr.Conflict, "decision %s was decided by someone else meanwhile: read it again", d.Key)
		}
		if out, err = tx.Decision.Get(ctx, d.ID); err != nil {
			return err
		}
		return record(ctx, tx, c, action, out)
	})
	return out, err
}

// checkDecide validates a decision before anything is read.
func checkDecide(c caller, req *taskwirev1.DecideRequest) error {
	n := utf8.RuneCountInString(req.GetReason())
	switch {
	case !c.human():
		return domainerr.New(domainerr.PermissionDenied, "only a person may decide: %s is an assistant; a person of the tenant decides in the console", c.Handle)
	case n > maxReason:
		return domainerr.New(domainerr.Invalid, "reason is %d characters: shorten it to %d at most", n, maxReason)
	case !req.GetApprove() && n == 0:
		return domainerr.New(domainerr.Invalid, "reason is empty: say why you decline, the assistant reads it")
	}
	return nil
}

// mayDecide refuses a person who asked for d, or whose role or token does
// not permit d's tool.
func mayDecide(c caller, d *ent.Decision) error {
	if d.RequestedBy == c.MemberID {
		return domainerr.New(domainerr.PermissionDenied, "you asked for decision %s yourself: another person of the tenant must decide it", d.Key)
	}
	return mayUse(c, d.Tool)
}

// mayUse refuses c a tool its role or token does not permit.
func mayUse(c caller, tool string) error {
	rule, ok := toolRule(tool)
	if !ok {
		return domainerr.New(domainerr.PermissionDenied, "tool %s is not a tool of this server", tool)
	}
	r := rule.Refusal(c.Role, c.Tenant)
	switch {
	case !authz.RoleAllows(c.Role, rule.Scope):
		return domainerr.New(domainerr.PermissionDenied, "%s", r.Sentence())
	case !authz.AtLeast(c.Role, rule.MinRole):
		return domainerr.New(domainerr.PermissionDenied, "%s", r.LeastRoleSentence(rule.MinRole))
	case !authz.Allows(c.token.Scopes, rule.Scope):
		return domainerr.New(domainerr.PermissionDenied, "%s needs the %s scope, which your token or sign-in lacks", tool, rule.Scope)
	}
	return nil
}

// stateWord names a state in a sentence.
func stateWord(st taskwirev1.DecisionState) string {
	switch st {
	case taskwirev1.DecisionState_DECISION_STATE_APPROVED:
		return "approved"
	case taskwirev1.DecisionState_DECISION_STATE_DECLINED:
		return "declined"
	case taskwirev1.DecisionState_DECISION_STATE_EXPIRED:
		return "expired"
	case taskwirev1.DecisionState_DECISION_STATE_USED:
		return "approved and used"
	}
	return "pending"
}

package decisions

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/decision"
)

// Use uses up decision id for one call of tool by member memberID of
// tenant tenantID, in tx, the transaction of the change it allows: the
// decision must be approved, unused and unexpired, and asked for by that
// member for that tool. A second use is refused, since the first set
// used_at. The refusals say what the caller can do. It returns the
// decision used, which names who decided and the arguments they saw, or
// nil and no error when no decision has id at all (it may then be a
// person's confirmation).
func Use(ctx context.Context, tx *ent.Tx, tenantID, memberID int, tool, id string, now time.Time) (*ent.Decision, error) {
	d, err := tx.Decision.Query().Where(decision.TenantID(tenantID), decision.Key(id)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	case d.RequestedBy != memberID || d.Tool != tool:
		return nil, domainerr.New(domainerr.PermissionDenied,
			"this confirmation was given for another call: call %s again and wait for a person to approve it in the console", tool)
	}
	switch st := StateAt(d, now); st {
	case taskwirev1.DecisionState_DECISION_STATE_APPROVED:
	case taskwirev1.DecisionState_DECISION_STATE_PENDING:
		return nil, domainerr.New(domainerr.PermissionDenied, "a person has not decided on %s yet: wait until they approve it in the console", tool)
	case taskwirev1.DecisionState_DECISION_STATE_USED:
		return nil, domainerr.New(domainerr.Conflict, "this approval was already used: call %s again to ask a person anew", tool)
	default:
		return nil, domainerr.New(domainerr.PermissionDenied, "the decision on this call is %s: call %s again to ask a person anew", stateWord(st), tool)
	}
	n, err := tx.Decision.Update().Where(decision.ID(d.ID), decision.TenantID(tenantID), decision.UsedAtIsNil()).
		SetUsedAt(now.UTC().Truncate(time.Microsecond)).Save(ctx)
	switch {
	case err != nil:
		return nil, err
	case n == 0:
		return nil, domainerr.New(domainerr.Conflict, "this approval was already used: call %s again to ask a person anew", tool)
	}
	return d, nil
}

package board

import (
	"context"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/decisions"
)

// workApproveTool names ApproveWork in decisions and refusals.
var workApproveTool = methods.Must(taskwirev1.WorkService_ApproveWork_FullMethodName).Name

// decidedBy is the person's decision an assistant's approval carries.
type decidedBy struct {
	approver string // the handle of the person who decided
	id       string // the decision's id
}

// approverOf returns who approves work on t with ap: a person, themself;
// an assistant, the person who approved its proposal in the console. The
// assistant's decision (confirmation, attached by the front door) is used
// up in tx, and must have been asked for this very task, plan and limits:
// what the person read is what is approved.
func approverOf(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, ap approval, confirmation string, now time.Time) (int, *decidedBy, error) {
	if a.member.Kind == member.KindHuman {
		return a.member.ID, nil, nil
	}
	d, err := decisions.Use(ctx, tx, a.tenant.ID, a.member.ID, workApproveTool, confirmation, now)
	switch {
	case err != nil:
		return 0, nil, err
	case d == nil || d.DecidedBy == nil:
		// An assistant answering a form itself confirms nothing.
		return 0, nil, domainerr.New(domainerr.PermissionDenied,
			"%s by an assistant needs a person to approve it in the console, and an assistant cannot approve it itself: call %s again to ask them, and retry once they approved",
			workApproveTool, workApproveTool)
	}
	if !proposed(d.Arguments, t, ap) {
		return 0, nil, domainerr.New(domainerr.PermissionDenied,
			"the person approved another task, plan or limits than this call's: call %s again with the plan you want them to approve", workApproveTool)
	}
	person, err := tx.Member.Query().Where(member.TenantID(a.tenant.ID), member.ID(*d.DecidedBy)).Only(ctx)
	if err != nil {
		return 0, nil, err
	}
	return person.ID, &decidedBy{approver: person.Handle, id: d.Key}, nil
}

// proposed reports whether args, the arguments of the call a person
// approved, ask for work on t with ap, read as ApproveWork reads them.
func proposed(args string, t *ent.Task, ap approval) bool {
	var req taskwirev1.ApproveWorkRequest
	if (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(args), &req) != nil {
		return false
	}
	seen, err := checkApproval(&req)
	return err == nil && seen == ap && mustNumber(req.GetRef()) == t.Number
}

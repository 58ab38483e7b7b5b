package board

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/safetext"
)

// ApproveWork puts a task in the queue for assistants, with a plan and
// limits, or replaces the plan and limits of work nobody holds.
func (s *Service) ApproveWork(ctx context.Context, req *taskwirev1.ApproveWorkRequest) (*taskwirev1.ApproveWorkResponse, error) {
	return call(ctx, s, req, s.approveWork)
}

// approval is a checked ApproveWorkRequest.
type approval struct {
	plan                   string
	leaseMinutes, maxClaim int
}

func (s *Service) approveWork(ctx context.Context, a actor, req *taskwirev1.ApproveWorkRequest) (*taskwirev1.ApproveWorkResponse, error) {
	ap, err := checkApproval(req)
	if err != nil {
		return nil, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
		return nil, err
	}
	if a.member.Kind != member.KindHuman && req.GetConfirmation() == "" {
		return nil, s.notAPerson(ctx, a, Ref(mustNumber(req.GetRef())))
	}
	method := taskwirev1.WorkService_ApproveWork_FullMethodName
	return idempotency.Do(ctx, s.client, idemCaller(a), method, req, func(tx *ent.Tx) (*taskwirev1.ApproveWorkResponse, error) {
		t, err := findTask(ctx, tx.Client(), a, req.GetRef())
		if err != nil {
			return nil, err
		}
		if t.Lane == task.LaneDone {
			return nil, domainerr.New(domainerr.Conflict,
				"%s is in the done lane: move it to another lane with tasks_move first if there is more work to do on it", Ref(t.Number))
		}
		if err := checkVersion(t, req.GetExpectedVersion()); err != nil {
			return nil, err
		}
		now := workNow()
		approver, decided, err := approverOf(ctx, tx, a, t, ap, req.GetConfirmation(), now)
		if err != nil {
			return nil, err
		}
		w, err := approve(ctx, tx, a, t, ap, approver, now)
		if err != nil {
			return nil, err
		}
		detail := map[string]any{"ref": Ref(t.Number), "lease_minutes": w.LeaseMinutes, "max_claims": w.MaxClaims}
		if decided != nil {
			detail["approved_by"], detail["decision"] = decided.approver, decided.id
		}
		if err := record(ctx, tx, a, ActionWorkApproved, t, detail); err != nil {
			return nil, err
		}
		p, err := workProto(ctx, tx.Client(), a, t, w)
		return &taskwirev1.ApproveWorkResponse{Work: p}, err
	})
}

// checkApproval validates the plan and limits, applying the defaults.
func checkApproval(req *taskwirev1.ApproveWorkRequest) (approval, error) {
	if _, err := parseRef(req.GetRef()); err != nil {
		return approval{}, err
	}
	ap := approval{plan: strings.TrimSpace(safetext.Block(req.GetPlan())), leaseMinutes: DefaultLeaseMinutes, maxClaim: DefaultMaxClaims}
	switch n := utf8.RuneCountInString(ap.plan); {
	case n == 0:
		return approval{}, domainerr.New(domainerr.Invalid, "plan is empty: say what to do, what not to touch and how to know it is done")
	case n > MaxPlan:
		return approval{}, domainerr.New(domainerr.Invalid, "plan is %d characters long, more than %d: shorten it and put details in the task's note", n, MaxPlan)
	}
	if m := req.GetLeaseMinutes(); m != 0 {
		if m < 1 || m > MaxLeaseMinutes {
			return approval{}, domainerr.New(domainerr.Invalid, "lease_minutes %d is out of range: use 1 to %d, or leave it out for %d", m, MaxLeaseMinutes, DefaultLeaseMinutes)
		}
		ap.leaseMinutes = int(m)
	}
	if c := req.GetMaxClaims(); c != 0 {
		if c < 1 || c > MaxMaxClaims {
			return approval{}, domainerr.New(domainerr.Invalid, "max_claims %d is out of range: use 1 to %d, or leave it out for %d", c, MaxMaxClaims, DefaultMaxClaims)
		}
		ap.maxClaim = int(c)
	}
	return ap, nil
}

// mustNumber is the number of a ref checked already.
func mustNumber(ref string) int {
	n, _ := parseRef(ref)
	return n
}

// notAPerson refuses an approval by an assistant that carries no
// person's decision, naming the person who answers for it.
func (s *Service) notAPerson(ctx context.Context, a actor, ref string) error {
	who := "a person in tenant " + a.tenant.Slug
	if id := a.member.SponsorID; id != nil {
		sponsor, err := s.client.Member.Query().Where(member.TenantID(a.tenant.ID), member.ID(*id)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		if sponsor != nil {
			who = sponsor.Handle
		}
	}
	return domainerr.New(domainerr.PermissionDenied,
		"Only people can approve work for assistants: call %s over MCP to ask %s to approve your plan for %s in the console", workApproveTool, who, ref)
}

// approve creates the work item of t, approved by member approver, or
// puts the existing one back in the queue with the new plan and limits.
// Work held under a live lease is refused: its holder must finish,
// release or lapse first. The count of claims starts again when the work
// was finished or used up its claims, so approving again always makes it
// claimable; a release's reason is answered by approving again.
func approve(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, ap approval, approver int, now time.Time) (*ent.WorkItem, error) {
	w, err := workOf(ctx, tx, a, t)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return tx.WorkItem.Create().
			SetTenantID(a.tenant.ID).SetTaskID(t.ID).SetBoardID(t.BoardID).
			SetPlan(ap.plan).SetLeaseMinutes(ap.leaseMinutes).SetMaxClaims(ap.maxClaim).
			SetApprovedByID(approver).SetApprovedAt(now).
			Save(ctx)
	}
	if w.State == workitem.StateClaimed && !lapsed(w, now) {
		return nil, domainerr.New(domainerr.Conflict,
			"%s is being worked on under a lease until %s: approve it again once its holder completes or releases it, or the lease expires",
			Ref(t.Number), stamp(*w.LeaseExpiresAt))
	}
	u := endLease(tx, a, w).
		SetState(workitem.StateApproved).SetBoardID(t.BoardID).
		SetPlan(ap.plan).SetLeaseMinutes(ap.leaseMinutes).SetMaxClaims(ap.maxClaim).
		SetApprovedByID(approver).SetApprovedAt(now).SetLastReleaseReason("").
		ClearTestStatus().ClearCompletedAt()
	if w.State == workitem.StateExhausted || w.State == workitem.StateCompleted || w.Claims >= ap.maxClaim {
		u.SetClaims(0)
	}
	w, err = u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.New(domainerr.Conflict,
			"%s's work was claimed or changed at the same time: read it again with tasks_get, then approve it again if it is still needed", Ref(t.Number))
	}
	return w, err
}

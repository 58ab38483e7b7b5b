package board

import (
	"context"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/safetext"
)

// ReleaseWork hands claimed work back to the queue with the reason, which
// also becomes the caller's comment on the task so people see it where
// they look. Work that used up its claims is exhausted instead: it waits
// for a person to approve it again.
func (s *Service) ReleaseWork(ctx context.Context, req *taskwirev1.ReleaseWorkRequest) (*taskwirev1.ReleaseWorkResponse, error) {
	return call(ctx, s, req, s.releaseWork)
}

func (s *Service) releaseWork(ctx context.Context, a actor, req *taskwirev1.ReleaseWorkRequest) (*taskwirev1.ReleaseWorkResponse, error) {
	reason := strings.TrimSpace(safetext.Block(req.GetReason()))
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		return nil, domainerr.New(domainerr.Invalid, "reason is empty: say why you hand the task back (stuck, needs a person, out of scope)")
	case n > MaxReleaseReason:
		return nil, domainerr.New(domainerr.Invalid, "reason is %d characters long, more than %d: shorten it and add details as a comment", n, MaxReleaseReason)
	}
	method := taskwirev1.WorkService_ReleaseWork_FullMethodName
	return idempotency.Do(ctx, s.client, idemCaller(a), method, req, func(tx *ent.Tx) (*taskwirev1.ReleaseWorkResponse, error) {
		t, w, err := heldWork(ctx, tx, a, req.GetRef(), req.GetLeaseToken(), workNow())
		if err != nil {
			return nil, err
		}
		state := workitem.StateApproved
		if w.Claims >= w.MaxClaims {
			state = workitem.StateExhausted
		}
		if w, err = saveWork(ctx, t, endLease(tx, a, w).SetState(state).SetLastReleaseReason(reason)); err != nil {
			return nil, err
		}
		c, err := tx.Comment.Create().SetTenantID(a.tenant.ID).SetTaskID(t.ID).SetAuthorID(a.member.ID).SetBody(reason).Save(ctx)
		if err != nil {
			return nil, err
		}
		detail := map[string]any{"ref": Ref(t.Number), "state": string(state), "reason": reason, "comment": c.Number}
		if err := record(ctx, tx, a, ActionWorkReleased, t, detail); err != nil {
			return nil, err
		}
		p, err := workProto(ctx, tx.Client(), a, t, w)
		return &taskwirev1.ReleaseWorkResponse{Work: p}, err
	})
}

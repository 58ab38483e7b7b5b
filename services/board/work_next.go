package board

import (
	"context"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/idempotency"
)

// How hard work_next tries before it gives up under contention: it reads
// up to claimBatch candidates, tries each, and reads again up to
// claimRounds times. Every failed try means another caller claimed that
// item meanwhile, so giving up takes claimRounds*claimBatch claims by
// others during one call.
const (
	claimBatch  = 10
	claimRounds = 10
)

// NextWork claims the oldest approved work that nobody holds, under a new
// lease. With an idempotency key, a retry returns the first claim (lease
// token included, so the key's record holds the token until it expires)
// instead of claiming a second task.
func (s *Service) NextWork(ctx context.Context, req *taskwirev1.NextWorkRequest) (*taskwirev1.NextWorkResponse, error) {
	return call(ctx, s, req, s.nextWork)
}

func (s *Service) nextWork(ctx context.Context, a actor, req *taskwirev1.NextWorkRequest) (*taskwirev1.NextWorkResponse, error) {
	method := taskwirev1.WorkService_NextWork_FullMethodName
	return idempotency.Do(ctx, s.client, idemCaller(a), method, req, func(tx *ent.Tx) (*taskwirev1.NextWorkResponse, error) {
		boardID := 0
		if strings.TrimSpace(req.GetBoard()) != "" {
			b, err := findBoard(ctx, tx.Client(), a, req.GetBoard())
			if err != nil {
				return nil, err
			}
			boardID = b.ID
		}
		now := workNow()
		if err := exhaustLapsed(ctx, tx, a, now); err != nil {
			return nil, err
		}
		w, secret, err := claimNext(ctx, tx, a, boardID, now)
		if err != nil || w == nil {
			return &taskwirev1.NextWorkResponse{}, err
		}
		return claimed(ctx, tx, a, w, secret)
	})
}

// claimed records the claim of w, whose lease has secret, and builds the
// response.
func claimed(ctx context.Context, tx *ent.Tx, a actor, w *ent.WorkItem, secret []byte) (*taskwirev1.NextWorkResponse, error) {
	t, err := tx.Task.Query().Where(task.TenantID(a.tenant.ID), task.ID(w.TaskID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	token := leaseTokenOf(t.Number, w.Fence, secret)
	detail := map[string]any{"ref": Ref(t.Number), "claims": w.Claims, "fence": w.Fence}
	if err := record(ctx, tx, a, ActionWorkClaimed, t, detail); err != nil {
		return nil, err
	}
	tp, err := taskProto(ctx, tx.Client(), a, t)
	if err != nil {
		return nil, err
	}
	wp, err := workProto(ctx, tx.Client(), a, t, w)
	if err != nil {
		return nil, err
	}
	return &taskwirev1.NextWorkResponse{Task: tp, Work: wp, LeaseToken: token}, nil
}

// claimNext claims the oldest claimable work item (on board boardID, or on
// any board when it is 0) for the caller at now, and returns it with its
// lease's secret; nil when there is none.
//
// The claim needs no lock beyond the row an UPDATE writes: it reads
// candidates, then claims one with an UPDATE whose WHERE repeats the fence
// it read and the claimable condition. Of two callers that read the same
// candidate, only the first UPDATE matches; the other's matches no row
// (on PostgreSQL it waits for the first to commit, then finds the fence
// moved; SQLite runs one writing transaction at a time) and it tries the
// next candidate.
func claimNext(ctx context.Context, tx *ent.Tx, a actor, boardID int, now time.Time) (*ent.WorkItem, []byte, error) {
	for range claimRounds {
		cands, err := candidates(ctx, tx, a, boardID, now)
		if err != nil || len(cands) == 0 {
			return nil, nil, err
		}
		for _, c := range cands {
			secret, hash := newLeaseSecret()
			n, err := tx.WorkItem.Update().
				Where(workitem.TenantID(a.tenant.ID), workitem.ID(c.ID), workitem.Fence(c.Fence), claimable(now)).
				SetState(workitem.StateClaimed).AddFence(1).AddClaims(1).
				SetHolderID(a.member.ID).SetLeaseSecretHash(hash).
				SetLeaseExpiresAt(now.Add(leaseLength(c))).
				Save(ctx)
			if err != nil {
				return nil, nil, err
			}
			if n == 1 {
				w, err := tx.WorkItem.Query().Where(workitem.TenantID(a.tenant.ID), workitem.ID(c.ID)).Only(ctx)
				return w, secret, err
			}
		}
	}
	return nil, nil, domainerr.New(domainerr.Unavailable,
		"many assistants are claiming work at the same time: call work_next again in a moment")
}

// candidates returns the oldest approvals claimable at now whose task is
// still open (not deleted, not done), on board boardID or on any board
// when it is 0.
func candidates(ctx context.Context, tx *ent.Tx, a actor, boardID int, now time.Time) ([]*ent.WorkItem, error) {
	open := []predicate.Task{task.TenantID(a.tenant.ID), task.DeletedAtIsNil(), task.LaneNEQ(task.LaneDone)}
	if boardID != 0 {
		open = append(open, task.BoardID(boardID))
	}
	return tx.WorkItem.Query().
		Where(workitem.TenantID(a.tenant.ID), claimable(now), workitem.HasTaskWith(open...)).
		Order(ent.Asc(workitem.FieldApprovedAt), ent.Asc(workitem.FieldID)).
		Limit(claimBatch).All(ctx)
}

// exhaustLapsed marks the work whose lease lapsed after its last allowed
// claim as exhausted: it leaves the queue until a person approves it
// again. Items are updated one at a time in id order, each guarded by the
// fence read, so concurrent callers neither undo a claim nor deadlock.
func exhaustLapsed(ctx context.Context, tx *ent.Tx, a actor, now time.Time) error {
	ws, err := tx.WorkItem.Query().
		Where(workitem.TenantID(a.tenant.ID), workitem.StateEQ(workitem.StateClaimed), workitem.LeaseExpiresAtLTE(now),
			predicate.WorkItem(sql.FieldsGTE(workitem.FieldClaims, workitem.FieldMaxClaims))).
		Order(ent.Asc(workitem.FieldID)).Limit(claimBatch).All(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		err := tx.WorkItem.Update().
			Where(workitem.TenantID(a.tenant.ID), workitem.ID(w.ID), workitem.Fence(w.Fence), workitem.StateEQ(workitem.StateClaimed)).
			SetState(workitem.StateExhausted).ClearHolderID().ClearLeaseSecretHash().
			Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

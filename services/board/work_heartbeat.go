package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
)

// HeartbeatWork renews the caller's lease on work it claimed, for another
// lease_minutes from now. Renewing is naturally idempotent, and it records
// no activity: a lease kept alive is not a change anyone reads in a task's
// history.
func (s *Service) HeartbeatWork(ctx context.Context, req *taskwirev1.HeartbeatWorkRequest) (*taskwirev1.HeartbeatWorkResponse, error) {
	return call(ctx, s, req, s.heartbeatWork)
}

func (s *Service) heartbeatWork(ctx context.Context, a actor, req *taskwirev1.HeartbeatWorkRequest) (*taskwirev1.HeartbeatWorkResponse, error) {
	resp := &taskwirev1.HeartbeatWorkResponse{}
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		now := workNow()
		t, w, err := heldWork(ctx, tx, a, req.GetRef(), req.GetLeaseToken(), now)
		if err != nil {
			return err
		}
		u := tx.WorkItem.UpdateOne(w).Where(fenced(a, w)...).SetLeaseExpiresAt(now.Add(leaseLength(w)))
		if w, err = saveWork(ctx, t, u); err != nil {
			return err
		}
		resp.Work, err = workProto(ctx, tx.Client(), a, t, w)
		return err
	})
	return resp, err
}

package board

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/task"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/store"
)

func (s *Service) deleteTask(ctx context.Context, a actor, req *taskwirev1.DeleteTaskRequest) (*taskwirev1.DeleteTaskResponse, error) {
	t, err := s.softDelete(ctx, a, req.GetRef(), req.GetConfirmation(), true)
	return &taskwirev1.DeleteTaskResponse{Task: t}, err
}

func (s *Service) restoreTask(ctx context.Context, a actor, req *taskwirev1.RestoreTaskRequest) (*taskwirev1.RestoreTaskResponse, error) {
	t, err := s.softDelete(ctx, a, req.GetRef(), req.GetConfirmation(), false)
	return &taskwirev1.RestoreTaskResponse{Task: t}, err
}

// softDelete deletes (or restores) the task with ref in one transaction
// that also uses up the person's confirmation, so a confirmation allows
// exactly one change however often it is replayed.
func (s *Service) softDelete(ctx context.Context, a actor, ref, confirmed string, del bool) (*taskwirev1.Task, error) {
	action := ActionTaskDeleted
	if !del {
		action = ActionTaskRestored
	}
	if confirmed == "" {
		return nil, domainerr.New(domainerr.PermissionDenied, "%s needs a person's confirmation, which only the front door can attach", action)
	}
	var out *taskwirev1.Task
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		t, err := findAnyTask(ctx, tx.Client(), a, ref)
		if err != nil {
			return err
		}
		switch {
		case del && t.DeletedAt != nil:
			return domainerr.New(domainerr.NotFound, "%s is already deleted", Ref(t.Number))
		case !del && t.DeletedAt == nil:
			return domainerr.New(domainerr.Invalid, "%s is not deleted, so there is nothing to restore", Ref(t.Number))
		}
		if err := useConfirmation(ctx, tx, a, confirmed, action); err != nil {
			return err
		}
		u := tx.Task.UpdateOneID(t.ID).Where(task.TenantID(a.tenant.ID), task.Version(t.Version)).AddVersion(1)
		if del {
			u.SetDeletedAt(time.Now().UTC().Truncate(time.Microsecond))
		} else {
			u.ClearDeletedAt()
		}
		before := t
		if t, err = u.Save(ctx); err != nil {
			if ent.IsNotFound(err) { // changed between our read and write
				return conflict(before, before.Version)
			}
			return err
		}
		if err := record(ctx, tx, a, action, t, map[string]any{"ref": Ref(t.Number), "version": t.Version}); err != nil {
			return err
		}
		out, err = taskProto(ctx, tx.Client(), a, t)
		return err
	})
	return out, err
}

// useConfirmation records that confirmation id was used; a second use
// violates the unique index and is refused.
func useConfirmation(ctx context.Context, tx *ent.Tx, a actor, id, action string) error {
	err := tx.Confirmation.Create().SetTenantID(a.tenant.ID).SetNonce(id).
		SetAction(action).SetMemberID(a.member.ID).Exec(ctx)
	if ent.IsConstraintError(err) {
		return domainerr.New(domainerr.Conflict, "this confirmation was already used: call the tool again to ask the person anew")
	}
	return err
}

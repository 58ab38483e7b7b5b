package board

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/services/decisions"
)

func (s *Service) deleteTask(ctx context.Context, a actor, req *taskwirev1.DeleteTaskRequest) (*taskwirev1.DeleteTaskResponse, error) {
	if err := checkDelete(ActionTaskDeleted, req.GetRef(), req.GetConfirmation(), req.GetExpectedVersion()); err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_DeleteTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.DeleteTaskResponse, error) {
			t, err := softDelete(ctx, tx, a, req.GetRef(), req.GetConfirmation(), req.GetExpectedVersion(), true)
			return &taskwirev1.DeleteTaskResponse{Task: t}, err
		})
}

func (s *Service) restoreTask(ctx context.Context, a actor, req *taskwirev1.RestoreTaskRequest) (*taskwirev1.RestoreTaskResponse, error) {
	if err := checkDelete(ActionTaskRestored, req.GetRef(), req.GetConfirmation(), 0); err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_RestoreTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.RestoreTaskResponse, error) {
			t, err := softDelete(ctx, tx, a, req.GetRef(), req.GetConfirmation(), 0, false)
			return &taskwirev1.RestoreTaskResponse{Task: t}, err
		})
}

// checkDelete validates a delete or restore before anything is read.
func checkDelete(action, ref, confirmed string, expected int32) error {
	if confirmed == "" {
		return domainerr.New(domainerr.PermissionDenied, "%s needs a person's confirmation, which only the front door can attach", action)
	}
	if _, err := parseRef(ref); err != nil {
		return err
	}
	return checkExpected(expected)
}

// softDelete deletes (or restores) the task with ref in tx, which also uses
// up the person's confirmation, so a confirmation allows exactly one change
// however often it is replayed. A deleted task leaves its lane (the tasks
// below move up); a restored one comes back at the bottom of its lane,
// unless the lane is at its WIP limit.
func softDelete(ctx context.Context, tx *ent.Tx, a actor, ref, confirmed string, expected int32, del bool) (*taskwirev1.Task, error) {
	action := ActionTaskDeleted
	if !del {
		action = ActionTaskRestored
	}
	if err := quota.Lock(ctx, tx, a.tenant.ID); err != nil {
		return nil, err
	}
	t, err := findAnyTask(ctx, tx.Client(), a, ref)
	if err != nil {
		return nil, err
	}
	switch {
	case del && t.DeletedAt != nil:
		return nil, domainerr.New(domainerr.NotFound, "%s is already deleted", Ref(t.Number))
	case !del && t.DeletedAt == nil:
		return nil, domainerr.New(domainerr.Invalid, "%s is not deleted, so there is nothing to restore", Ref(t.Number))
	}
	if err := checkVersion(t, expected); err != nil {
		return nil, err
	}
	if !del {
		if err := checkRestore(ctx, tx, a); err != nil {
			return nil, err
		}
	}
	if err := useConfirmation(ctx, tx, a, confirmed, action, del); err != nil {
		return nil, err
	}
	u := tx.Task.UpdateOneID(t.ID).Where(task.TenantID(a.tenant.ID), task.Version(t.Version)).AddVersion(1)
	if del {
		u.SetDeletedAt(time.Now().UTC().Truncate(time.Microsecond))
	} else {
		u.ClearDeletedAt()
	}
	if err := relane(ctx, tx, a, t, u, del); err != nil {
		return nil, err
	}
	after, err := saveTask(ctx, t, u)
	if err != nil {
		return nil, err
	}
	detail := map[string]any{"ref": Ref(after.Number), "version": after.Version, "lane": string(after.Lane)}
	if err := record(ctx, tx, a, action, after, detail); err != nil {
		return nil, err
	}
	return taskProto(ctx, tx.Client(), a, after)
}

// checkRestore refuses restoring a task when the tenant's task quota is
// full: a restored task counts against it again. The tenant's row is
// locked in tx (quota.Lock) and read here, as allocate reads it.
func checkRestore(ctx context.Context, tx *ent.Tx, a actor) error {
	if a.quota.Tasks == 0 {
		return nil
	}
	t, err := tx.Tenant.Get(ctx, a.tenant.ID)
	if err != nil {
		return err
	}
	return a.quota.CheckTasks(ctx, tx, t, 1)
}

// relane keeps t's lane dense as t leaves it (del) or comes back to it at
// the bottom.
func relane(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, u *ent.TaskUpdateOne, del bool) error {
	if del {
		rest, err := laneTasks(ctx, tx.Client(), a, t.BoardID, t.Lane) // t is still in it
		if err != nil {
			return err
		}
		rest = without(rest, t.ID)
		return renumber(ctx, tx, a, rest, 0)
	}
	b, err := boardOf(ctx, tx, a, t.BoardID)
	if err != nil {
		return err
	}
	if err := checkLaneRoom(ctx, tx, a, b, t.Lane, 1); err != nil {
		return err
	}
	pos, err := bottom(ctx, tx.Client(), a, t.BoardID, t.Lane)
	if err != nil {
		return err
	}
	u.SetPosition(pos)
	return nil
}

// The tools whose confirmation softDelete uses up: a person's decision
// names the tool it allows.
var (
	deleteTool  = methods.Must(taskwirev1.BoardService_DeleteTask_FullMethodName).Name
	restoreTool = methods.Must(taskwirev1.BoardService_RestoreTask_FullMethodName).Name
)

// useConfirmation uses up confirmation id in tx, so that it allows one
// change however often it is replayed. An id may name a decision a person
// approved in the console (services/decisions), which is the only
// confirmation an assistant can give: an assistant that declares form
// elicitation could otherwise answer the form itself. A person may also
// confirm with the nonce of a form they answered: it is recorded, and a
// second use violates the unique index and is refused.
func useConfirmation(ctx context.Context, tx *ent.Tx, a actor, id, action string, del bool) error {
	tool := deleteTool
	if !del {
		tool = restoreTool
	}
	if d, err := decisions.Use(ctx, tx, a.tenant.ID, a.member.ID, tool, id, time.Now()); d != nil || err != nil {
		return err
	}
	if a.member.Kind != member.KindHuman {
		return domainerr.New(domainerr.PermissionDenied,
			"%s needs a person to confirm it, and an assistant cannot confirm it itself: a person of the tenant must approve it in the console. Call %s again to ask them, and retry once they approved.",
			tool, tool)
	}
	err := tx.Confirmation.Create().SetTenantID(a.tenant.ID).SetNonce(id).
		SetAction(action).SetMemberID(a.member.ID).Exec(ctx)
	if ent.IsConstraintError(err) {
		return domainerr.New(domainerr.Conflict, "this confirmation was already used: call the tool again to ask the person anew")
	}
	return err
}

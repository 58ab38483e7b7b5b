package board

import (
	"context"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
)

// Actions recorded in the activity log.
const (
	ActionTaskCreated   = "task.created"
	ActionTaskUpdated   = "task.updated"
	ActionTaskMoved     = "task.moved"
	ActionCommentAdded  = "comment.added"
	ActionTasksImported = "tasks.imported"
	ActionTaskDeleted   = "task.deleted"
	ActionTaskRestored  = "task.restored"
)

// activityOf builds the activity row of one write by the caller, naming
// the client the caller acted through (clientOf); t may be nil for a
// write that is not about one task. A task's change is noted
// in ctx, to be announced once committed (announce.go).
func activityOf(ctx context.Context, tx *ent.Tx, a actor, action string, t *ent.Task, detail map[string]any) *ent.ActivityCreate {
	c := tx.Activity.Create().
		SetTenantID(a.tenant.ID).
		SetActorID(a.member.ID).
		SetActorKind(activity.ActorKind(a.member.Kind)).
		SetAction(action).
		SetDetail(detail).
		SetClient(clientOf(ctx))
	if t != nil {
		c.SetTaskID(t.ID)
		noteWritten(ctx, t.BoardID, Ref(t.Number))
	}
	return c
}

// record writes the activity row of one write by the caller.
func record(ctx context.Context, tx *ent.Tx, a actor, action string, t *ent.Task, detail map[string]any) error {
	return activityOf(ctx, tx, a, action, t, detail).Exec(ctx)
}

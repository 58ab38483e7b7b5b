package board

import (
	"context"
	"slices"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/idempotency"
)

// idemCaller is who a write is made by, for its idempotency key: keys are
// per member.
func idemCaller(a actor) idempotency.Caller {
	return idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID}
}

// taskEdit sets the changes of one write on u, the update of t, and
// returns what changed for the activity log; nil means nothing changes and
// nothing is written. It runs inside the write's transaction.
type taskEdit func(t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error)

// changeTask applies edit to the task with ref in tx: it checks expected
// (0 means any version), lets edit set the changes on the update, bumps
// the version and records action with edit's detail. It returns the task
// as it was and as it is now (the same when edit changed nothing).
func changeTask(ctx context.Context, tx *ent.Tx, a actor, ref string, expected int32, action string, edit taskEdit) (before, after *ent.Task, err error) {
	t, err := findTask(ctx, tx.Client(), a, ref)
	if err != nil {
		return nil, nil, err
	}
	if err := checkVersion(t, expected); err != nil {
		return nil, nil, err
	}
	u := tx.Task.UpdateOneID(t.ID).Where(task.TenantID(a.tenant.ID), task.Version(t.Version)).AddVersion(1)
	detail, err := edit(t, u)
	if err != nil || detail == nil {
		return t, t, err
	}
	after, err = saveTask(ctx, t, u)
	if err != nil {
		return nil, nil, err
	}
	detail["ref"], detail["version"] = Ref(after.Number), after.Version
	return t, after, record(ctx, tx, a, action, after, detail)
}

// checkExpected validates an expected_version argument before anything is
// read.
func checkExpected(expected int32) error {
	if expected < 0 {
		return domainerr.New(domainerr.Invalid, "expected_version %d is not valid: pass the version you last read (1 or more), or leave it out", expected)
	}
	return nil
}

// checkVersion refuses a write to t made against another version than
// expected (0 means any version).
func checkVersion(t *ent.Task, expected int32) error {
	if expected != 0 && int(expected) != t.Version {
		return conflict(t, int(expected))
	}
	return nil
}

// saveTask runs u, the update of t guarded by t's version: a task changed
// by another write between our read and this one is a conflict.
func saveTask(ctx context.Context, t *ent.Task, u *ent.TaskUpdateOne) (*ent.Task, error) {
	after, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, conflict(t, t.Version)
	}
	return after, err
}

// conflict reports that t is no longer at version want.
func conflict(t *ent.Task, want int) error {
	if t.Version != want {
		return domainerr.New(domainerr.Conflict,
			"%s changed since version %d (now %d): read it again with tasks_get, then retry with expected_version %d",
			Ref(t.Number), want, t.Version, t.Version)
	}
	return domainerr.New(domainerr.Conflict, "%s was changed by someone else at the same time: read it again with tasks_get, then retry",
		Ref(t.Number))
}

// withAuthor returns the text authors of t with the caller added: whoever
// writes a task's title or note shares the authorship of its text.
func withAuthor(t *ent.Task, a actor) ([]int, bool) {
	if slices.Contains(t.TextAuthorIds, a.member.ID) {
		return t.TextAuthorIds, false
	}
	return append(slices.Clone(t.TextAuthorIds), a.member.ID), true
}

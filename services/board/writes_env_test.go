package board_test

import (
	"context"
	"fmt"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
)

// scoped is a context for reading acme's rows directly.
func (e *env) scoped() context.Context {
	return tenantscope.NewContext(context.Background(), e.acme.ID)
}

// setWIP sets the WIP limits of acme's board slug, lane name → limit.
func (e *env) setWIP(t *testing.T, slug string, limits map[string]int) {
	t.Helper()
	err := e.client.Board.Update().Where(entboard.TenantID(e.acme.ID), entboard.Slug(slug)).
		SetWipLimits(limits).Exec(e.scoped())
	if err != nil {
		t.Fatal(err)
	}
}

// row returns acme's task with ref, as stored.
func (e *env) row(t *testing.T, ref string) *ent.Task {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(ref, "T-%d", &n); err != nil {
		t.Fatal(err)
	}
	r, err := e.client.Task.Query().Where(task.TenantID(e.acme.ID), task.Number(n)).Only(e.scoped())
	if err != nil {
		t.Fatalf("task %s: %v", ref, err)
	}
	return r
}

// lane returns the refs of the tasks (not deleted) in lane of acme's board
// slug, top first, and fails the test unless their positions are 0, 1, 2...
func (e *env) lane(t *testing.T, slug string, lane task.Lane) []string {
	t.Helper()
	ts, err := e.client.Task.Query().
		Where(task.TenantID(e.acme.ID), task.HasBoardWith(entboard.Slug(slug)), task.LaneEQ(lane), task.DeletedAtIsNil()).
		Order(ent.Asc(task.FieldPosition), ent.Asc(task.FieldNumber)).All(e.scoped())
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{}
	for i, r := range ts {
		refs = append(refs, fmt.Sprintf("T-%d", r.Number))
		if r.Position != i {
			t.Errorf("lane %s of %s: T-%d at position %d, want %d (positions 0, 1, 2, ...)", lane, slug, r.Number, r.Position, i)
		}
	}
	return refs
}

// version returns the version of acme's task with ref.
func (e *env) version(t *testing.T, ref string) int {
	t.Helper()
	return e.row(t, ref).Version
}

// createIn makes a task with title in lane of the default board, or fails
// the test.
func (e *env) createIn(t *testing.T, ctx context.Context, lane taskwirev1.Lane, title string) *taskwirev1.Task {
	t.Helper()
	resp, err := e.svc.CreateTask(ctx, &taskwirev1.CreateTaskRequest{Title: title, Lane: lane})
	if err != nil {
		t.Fatalf("CreateTask(%q in %v) = %v", title, lane, err)
	}
	return resp.Task
}

package board_test

import (
	"context"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// archive sets whether board slug of acme is archived, as the admin API
// does.
func (e *env) archive(t *testing.T, slug string, archived bool) (*ent.Board, error) {
	t.Helper()
	ctx := tenantscope.NewContext(context.Background(), e.acme.ID)
	var b *ent.Board
	err := store.WithTx(ctx, e.client, func(tx *ent.Tx) error {
		var err error
		b, err = board.SetArchived(ctx, tx, e.acme, slug, archived, time.Now())
		return err
	})
	return b, err
}

// slugs lists the slugs of boards_list as ctx sees it.
func (e *env) slugs(t *testing.T, ctx context.Context, includeArchived bool) []string {
	t.Helper()
	resp, err := e.svc.ListBoards(ctx, &taskwirev1.ListBoardsRequest{IncludeArchived: includeArchived})
	if err != nil {
		t.Fatalf("ListBoards(include_archived %v) = %v", includeArchived, err)
	}
	var out []string
	for _, b := range resp.Items {
		s := b.Slug
		if b.Archived {
			s += " (archived)"
		}
		out = append(out, s)
	}
	return out
}

// TestArchivedBoard: an archived board leaves boards_list unless asked
// for, stays readable, and refuses new tasks, moves and imports with a
// sentence saying how to unarchive it; unarchived, it works again.
func TestArchivedBoard(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		task, err := e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Rotate the keys"})
		if err != nil {
			t.Fatal(err)
		}
		ref := task.Task.Ref
		b, err := e.archive(t, "ops", true)
		if err != nil || b.ArchivedAt == nil {
			t.Fatalf("SetArchived(ops) = %v, %v, want it archived", b, err)
		}
		if _, err := e.archive(t, "ops", true); err != nil {
			t.Errorf("SetArchived(ops) again = %v, want no change and no error", err)
		}
		if got := e.slugs(t, e.bob, false); !equal(got, "main") {
			t.Errorf("boards_list = %v, want main only", got)
		}
		if got := e.slugs(t, e.bob, true); !equal(got, "main", "ops (archived)") {
			t.Errorf("boards_list(include_archived) = %v, want main and ops (archived)", got)
		}
		if got, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"}); err != nil || !got.Board.Archived {
			t.Errorf("GetBoard(ops) = %v, %v, want the archived board", got.GetBoard(), err)
		}
		if got, err := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: ref}); err != nil || got.Task.Title != "Rotate the keys" {
			t.Errorf("GetTask(%s) on the archived board = %v, %v", ref, got, err)
		}
		if got, err := e.svc.ListTasks(e.bob, &taskwirev1.ListTasksRequest{Board: "ops"}); err != nil || len(got.Items) != 1 {
			t.Errorf("ListTasks(ops) = %v, %v, want its one task", got, err)
		}

		refusal := []string{"board ops is archived", "taskwire admin boards unarchive ops"}
		_, err = e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "One more"})
		wantErr(t, "CreateTask on an archived board", err, domainerr.Conflict, refusal...)
		_, err = e.svc.ImportTasks(e.bob, &taskwirev1.ImportTasksRequest{Board: "ops", Tasks: drafts(2)})
		wantErr(t, "ImportTasks to an archived board", err, domainerr.Conflict, refusal...)
		_, err = e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: ref, Lane: taskwirev1.Lane_LANE_DOING})
		wantErr(t, "MoveTask on an archived board", err, domainerr.Conflict, refusal...)

		_, err = e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "ops", Name: "Ops again"})
		wantErr(t, "CreateBoard(ops) while archived", err, domainerr.Conflict, `archived board "ops"`, "taskwire admin boards unarchive ops")
		_, err = e.archive(t, "main", true)
		wantErr(t, "SetArchived(main)", err, domainerr.Conflict, "default board", "cannot be archived")
		_, err = e.archive(t, "nope", true)
		wantErr(t, "SetArchived(nope)", err, domainerr.NotFound, `No board "nope" in tenant acme`)

		if b, err := e.archive(t, "ops", false); err != nil || b.ArchivedAt != nil {
			t.Fatalf("SetArchived(ops, false) = %v, %v, want it in use again", b, err)
		}
		if _, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: ref, Lane: taskwirev1.Lane_LANE_DOING}); err != nil {
			t.Errorf("MoveTask on the unarchived board = %v", err)
		}
		if got := e.slugs(t, e.bob, false); !equal(got, "main", "ops") {
			t.Errorf("boards_list after unarchiving = %v, want main and ops", got)
		}
	})
}

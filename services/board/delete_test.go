package board_test

import (
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestDeleteAndRestore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Keep")
		e.create(t, e.alice, "Drop")

		_, err := e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-2"})
		wantErr(t, "DeleteTask without confirmation", err, domainerr.PermissionDenied, "confirmation")

		del, err := e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: "c-1"})
		if err != nil {
			t.Fatalf("DeleteTask(T-2) = %v", err)
		}
		if del.Task.Ref != "T-2" || del.Task.Version != 2 {
			t.Errorf("DeleteTask(T-2) = %v, want T-2 at version 2", del.Task)
		}
		_, err = e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-2"})
		wantErr(t, "GetTask(deleted T-2)", err, domainerr.NotFound, "T-2 was deleted", "tasks_restore")
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks listed after deleting one of two = %d, want 1", n)
		}
		_, err = e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-2", Lane: taskwirev1.Lane_LANE_DONE})
		wantErr(t, "MoveTask(deleted T-2)", err, domainerr.NotFound, "deleted")
		_, err = e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: "c-2"})
		wantErr(t, "DeleteTask(deleted T-2)", err, domainerr.NotFound, "already deleted")

		// A confirmation allows one change only, even for another task.
		_, err = e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "c-1"})
		wantErr(t, "DeleteTask with a used confirmation", err, domainerr.Conflict, "already used")
		if n := e.taskCount(t); n != 1 {
			t.Errorf("a replayed confirmation deleted a task: %d listed, want 1", n)
		}

		_, err = e.svc.RestoreTask(e.alice, &taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: "c-3"})
		wantErr(t, "RestoreTask(T-1 not deleted)", err, domainerr.Invalid, "not deleted")
		res, err := e.svc.RestoreTask(e.alice, &taskwirev1.RestoreTaskRequest{Ref: "t-2", Confirmation: "c-4"})
		if err != nil {
			t.Fatalf("RestoreTask(T-2) = %v", err)
		}
		if res.Task.Title != "Drop" || res.Task.Version != 3 {
			t.Errorf("RestoreTask(T-2) = %v, want Drop at version 3", res.Task)
		}
		if n := e.taskCount(t); n != 2 {
			t.Errorf("tasks listed after the restore = %d, want 2", n)
		}
		// Tenants do not share confirmations or tasks.
		_, err = e.svc.DeleteTask(e.gina, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "c-9"})
		wantErr(t, "DeleteTask(T-1) from globex", err, domainerr.NotFound, "No task T-1")

		var actions []string
		for _, a := range e.activities(t) {
			actions = append(actions, a.Action)
		}
		if got := actions[len(actions)-2:]; got[0] != "task.deleted" || got[1] != "task.restored" {
			t.Errorf("last activities = %v, want task.deleted, task.restored", got)
		}
	})
}

package board_test

import (
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// A task renamed with tasks_update is a duplicate of titles like its new
// one, no longer of titles like its old one, for tasks_create and
// tasks_import alike.
func TestDuplicatesFollowRenames(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Fix login page bug")
		title := "Write the release notes for 2.0"
		if _, err := e.svc.UpdateTask(e.alice, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: &title}); err != nil {
			t.Fatal(err)
		}

		_, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Write release notes for 2.0"})
		wantErr(t, "CreateTask(the new title, near enough)", err, domainerr.Conflict, `T-1 "Write the release notes for 2.0"`)
		resp, err := e.svc.ImportTasks(e.claude, &taskwirev1.ImportTasksRequest{Tasks: titled("write the release notes for 2.0!")})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetImported() != 0 || len(resp.GetSkipped()) != 1 || resp.GetSkipped()[0].GetDuplicateOf() != "T-1" {
			t.Errorf("ImportTasks(the new title) = %v, want it skipped as a duplicate of T-1", resp)
		}

		if _, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Fix the login page bug"}); err != nil {
			t.Errorf("CreateTask(the old title) = %v, want it created: T-1 no longer has that title", err)
		}
	})
}

package board_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func titled(titles ...string) []*taskwirev1.TaskDraft {
	ds := make([]*taskwirev1.TaskDraft, len(titles))
	for i, title := range titles {
		ds[i] = &taskwirev1.TaskDraft{Title: title}
	}
	return ds
}

// TestImportSameListTwice: importing the same list again creates nothing
// and reports every draft as skipped, naming the task it repeats.
func TestImportSameListTwice(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		list := titled("Write the release notes", "Upgrade Go to 1.26", "Fix: login BUG!")
		first, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: list})
		if err != nil || first.GetImported() != 3 {
			t.Fatalf("first ImportTasks = %v, %v; want 3 imported", first, err)
		}
		again, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: list})
		if err != nil {
			t.Fatalf("second ImportTasks = %v", err)
		}
		want := &taskwirev1.ImportTasksResponse{Refs: []string{}, Skipped: []*taskwirev1.SkippedDraft{
			{Index: 0, Title: "Write the release notes", DuplicateOf: "T-1", DuplicateTitle: "Write the release notes"},
			{Index: 1, Title: "Upgrade Go to 1.26", DuplicateOf: "T-2", DuplicateTitle: "Upgrade Go to 1.26"},
			{Index: 2, Title: "Fix: login BUG!", DuplicateOf: "T-3", DuplicateTitle: "Fix: login BUG!"},
		}}
		if diff := cmp.Diff(want, again, protocmp.Transform()); diff != "" {
			t.Errorf("second ImportTasks (-want +got):\n%s", diff)
		}
		if n := e.taskCount(t); n != 3 {
			t.Errorf("tasks after importing the same list twice = %d, want 3", n)
		}
		// Numbers are not used up by an import that created nothing.
		if got := e.create(t, e.alice, "Something else").Ref; got != "T-4" {
			t.Errorf("next ref = %s, want T-4", got)
		}
	})
}

// TestImportDuplicatesWithinAndAgainstBoard: a draft close to an open task
// of the board, or to an earlier draft, is skipped; the rest are imported
// in order; done tasks and other boards do not count; allow_duplicate
// imports them all.
func TestImportDuplicatesWithinAndAgainstBoard(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Fix login page bug")    // T-1, open
		done := e.create(t, e.alice, "Ship the beta") // T-2
		if _, err := e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: done.Ref, Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Rotate the keys"}); err != nil { // T-3, other board
			t.Fatal(err)
		}
		resp, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: titled(
			"Fix the login page bug", // repeats T-1
			"Ship the beta",          // T-2 is done: imported
			"Write docs",             // imported
			"Write the docs",         // close to "Write docs"? 2 of 3 words: no, imported
			"Rotate the keys",        // T-3 is on ops: imported
			"Ship the beta!",         // repeats the second draft
		)})
		if err != nil {
			t.Fatal(err)
		}
		want := &taskwirev1.ImportTasksResponse{Imported: 4, Refs: []string{"T-4", "T-5", "T-6", "T-7"}, Skipped: []*taskwirev1.SkippedDraft{
			{Index: 0, Title: "Fix the login page bug", DuplicateOf: "T-1", DuplicateTitle: "Fix login page bug"},
			{Index: 5, Title: "Ship the beta!", DuplicateOf: "T-4", DuplicateTitle: "Ship the beta"},
		}}
		if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
			t.Errorf("ImportTasks (-want +got):\n%s", diff)
		}
		all, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{AllowDuplicate: true, Tasks: titled("Fix login page bug", "Fix login page bug")})
		if err != nil || all.GetImported() != 2 || len(all.GetSkipped()) != 0 {
			t.Errorf("ImportTasks(allow_duplicate) = %v, %v; want both imported", all, err)
		}
	})
}

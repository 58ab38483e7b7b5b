package board_test

import (
	"fmt"
	"sync"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// withTaskQuota replaces e's service by one whose tenants may hold n tasks.
func (e *env) withTaskQuota(t *testing.T, n int) {
	t.Helper()
	svc, err := board.New(board.Config{Client: e.client, Quota: quota.Limits{Tasks: n}})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
}

// TestTaskQuota: creates and imports stop at the quota, an import counts
// its whole batch before creating anything, deleted tasks free their
// place and a restore takes it back; another tenant has its own quota.
func TestTaskQuota(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.withTaskQuota(t, 5)
		for i := range 3 {
			e.create(t, e.alice, fmt.Sprintf("Quota task %d", i+1))
		}
		_, err := e.svc.ImportTasks(e.claude, &taskwirev1.ImportTasksRequest{Tasks: drafts(3)})
		wantErr(t, "ImportTasks(3) with room for 2", err, domainerr.Exhausted,
			"tenant acme holds 3 tasks of its quota of 5, so 3 more do not fit: nothing was imported", "Import at most 2")
		if n := e.taskCount(t); n != 3 {
			t.Fatalf("tasks after the refused import = %d, want 3: nothing of it may be saved", n)
		}
		if _, err := e.svc.ImportTasks(e.claude, &taskwirev1.ImportTasksRequest{Tasks: drafts(2)}); err != nil {
			t.Fatalf("ImportTasks(2) with room for 2 = %v", err)
		}
		_, err = e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Title: "One too many"})
		wantErr(t, "CreateTask at the quota", err, domainerr.Exhausted, "tenant acme holds 5 tasks, its quota", "tasks_delete")
		if _, err := e.svc.CreateTask(e.gina, &taskwirev1.CreateTaskRequest{Title: "Globex has room"}); err != nil {
			t.Errorf("another tenant's CreateTask = %v, want its own quota", err)
		}

		if _, err := e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "q-1"}); err != nil {
			t.Fatal(err)
		}
		e.create(t, e.bob, "Fits once T-1 is deleted")
		_, err = e.svc.RestoreTask(e.alice, &taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: "q-2"})
		wantErr(t, "RestoreTask at the quota", err, domainerr.Exhausted, "holds 5 tasks")
		if n := e.taskCount(t); n != 5 {
			t.Errorf("tasks at the end = %d, want 5", n)
		}
	})
}

// TestTaskQuotaConcurrent: creates racing for the last places of the
// quota never overshoot it: the count is read under the tenant's lock.
func TestTaskQuotaConcurrent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.withTaskQuota(t, 10)
		e.create(t, e.alice, "Already there")
		const n = 16
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Title: fmt.Sprintf("Racer %d", i), AllowDuplicate: true})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			switch {
			case err == nil:
				created++
			case domainerr.KindOf(err) != domainerr.Exhausted:
				t.Fatalf("concurrent CreateTask = %v", err)
			}
		}
		if created != 9 || e.taskCount(t) != 10 {
			t.Errorf("%d creates racing for 9 places: %d succeeded, %d tasks held; want 9 and 10", n, created, e.taskCount(t))
		}
	})
}

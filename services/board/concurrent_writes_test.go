package board_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestConcurrentChecks races writes that check what the board holds: the
// duplicate check lets one of several identical creates through, a WIP
// limit holds under concurrent moves, and positions stay dense.
func TestConcurrentChecks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Rotate the keys"})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			if err == nil {
				created++
			} else if domainerr.KindOf(err) != domainerr.Conflict {
				t.Fatalf("concurrent CreateTask = %v", err)
			}
		}
		if created != 1 {
			t.Errorf("%d concurrent creates of one title created %d tasks, want 1 (the others are duplicates)", n, created)
		}

		for i := range n {
			e.create(t, e.alice, fmt.Sprintf("Task number %d", i))
		}
		e.setWIP(t, "main", map[string]int{"doing": 3})
		for i := range n {
			wg.Go(func() {
				_, errs[i] = e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: fmt.Sprintf("T-%d", i+2), Lane: taskwirev1.Lane_LANE_DOING})
			})
		}
		wg.Wait()
		moved := 0
		for _, err := range errs {
			if err == nil {
				moved++
			} else if domainerr.KindOf(err) != domainerr.Conflict {
				t.Fatalf("concurrent MoveTask = %v", err)
			}
		}
		doing := e.lane(t, "main", task.LaneDoing)
		if moved != 3 || len(doing) != 3 {
			t.Errorf("%d concurrent moves into doing (limit 3): %d succeeded, doing holds %v; want 3 and 3", n, moved, doing)
		}
		if backlog := e.lane(t, "main", task.LaneBacklog); len(backlog) != n+1-3 || !slices.IsSortedFunc(backlog, func(a, b string) int { return refNumber(a) - refNumber(b) }) {
			t.Errorf("backlog after the moves = %v, want the %d others in ref order", backlog, n+1-3)
		}
	})
}

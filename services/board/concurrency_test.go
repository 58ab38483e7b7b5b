package board_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestConcurrentCreates shows refs are handed out without races: concurrent
// creates and imports get distinct, contiguous numbers.
func TestConcurrentCreates(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		const workers, each = 20, 5
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			refs []string
			errs []error
		)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					ctx := []context.Context{e.alice, e.bob, e.claude}[w%3]
					var got []string
					var err error
					if i == each-1 && w%5 == 0 { // some workers import their last two
						var resp *taskwirev1.ImportTasksResponse
						resp, err = e.svc.ImportTasks(ctx, &taskwirev1.ImportTasksRequest{Tasks: drafts(2), AllowDuplicate: true})
						if err == nil {
							got = resp.Refs
						}
					} else {
						var resp *taskwirev1.CreateTaskResponse
						resp, err = e.svc.CreateTask(ctx, &taskwirev1.CreateTaskRequest{Title: fmt.Sprintf("w%d-%d", w, i)})
						if err == nil {
							got = []string{resp.Task.Ref}
						}
					}
					mu.Lock()
					refs = append(refs, got...)
					if err != nil {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("concurrent creates failed %d times, first: %v", len(errs), errs[0])
		}
		total := workers*each + workers/5
		var want []string
		for n := 1; n <= total; n++ {
			want = append(want, fmt.Sprintf("T-%d", n))
		}
		slices.SortFunc(refs, func(a, b string) int { return refNumber(a) - refNumber(b) })
		if !slices.Equal(refs, want) {
			t.Errorf("refs of %d concurrent creates = %v, want T-1 to T-%d once each", total, refs, total)
		}
		if n := len(listPages(t, e, &taskwirev1.ListTasksRequest{Limit: 100})); n != 2 {
			t.Errorf("pages of 100 after %d creates = %d, want 2", total, n)
		}
	})
}

// TestConcurrentUpdatesConflict shows expected_version lets exactly one of
// several writers of the same version win.
func TestConcurrentUpdatesConflict(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "contested")
		const writers = 8
		var wg sync.WaitGroup
		results := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				_, results[w] = e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{
					Ref: "T-1", Title: proto.String(fmt.Sprintf("writer %d", w)), ExpectedVersion: 1})
			})
		}
		wg.Wait()
		wins, conflicts := 0, 0
		for _, err := range results {
			switch {
			case err == nil:
				wins++
			case domainerr.KindOf(err) == domainerr.Conflict:
				conflicts++
			default:
				t.Errorf("UpdateTask(concurrent) = %v, want success or conflict", err)
			}
		}
		if wins != 1 || conflicts != writers-1 {
			t.Errorf("concurrent updates of version 1 = %d wins, %d conflicts, want 1 and %d", wins, conflicts, writers-1)
		}
		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if err != nil || got.Task.Version != 2 {
			t.Errorf("GetTask(T-1) after the race = %v, %v, want version 2", got, err)
		}
	})
}

func refNumber(ref string) int {
	var n int
	fmt.Sscanf(ref, "T-%d", &n)
	return n
}

package board_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/hook"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// progressLog collects the progress reports of one call.
type progressLog struct {
	mu      sync.Mutex
	reports []string
}

func (p *progressLog) context(ctx context.Context) context.Context {
	return progress.NewContext(ctx, func(done, total float64, msg string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.reports = append(p.reports, fmt.Sprintf("%g/%g %s", done, total, msg))
	})
}

func (p *progressLog) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reports)
}

func drafts(n int) []*taskwirev1.TaskDraft {
	ds := make([]*taskwirev1.TaskDraft, n)
	for i := range ds {
		ds[i] = &taskwirev1.TaskDraft{Title: fmt.Sprintf("imported %d", i+1)}
	}
	return ds
}

func TestImportTasks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "before")

		ds := drafts(25)
		ds[1] = &taskwirev1.TaskDraft{Title: "bug", Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Lane: taskwirev1.Lane_LANE_NEXT,
			Size: taskwirev1.TaskSize_TASK_SIZE_S, Note: "n", Assignees: []string{"me", "bob"}}
		var log progressLog
		resp, err := e.svc.ImportTasks(log.context(e.claude), &taskwirev1.ImportTasksRequest{Board: "ops", Tasks: ds})
		if err != nil {
			t.Fatalf("ImportTasks(25) = %v", err)
		}
		var want []string
		for n := 2; n <= 26; n++ {
			want = append(want, fmt.Sprintf("T-%d", n))
		}
		if resp.Imported != 25 || !slices.Equal(resp.Refs, want) {
			t.Errorf("ImportTasks(25) = %d %v, want 25 %v", resp.Imported, resp.Refs, want)
		}
		wantLog := []string{"10/25 Imported 10 of 25 tasks", "20/25 Imported 20 of 25 tasks", "25/25 Imported 25 of 25 tasks"}
		if got := log.get(); !slices.Equal(got, wantLog) {
			t.Errorf("ImportTasks(25) progress = %q, want %q", got, wantLog)
		}

		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-3"})
		if err != nil {
			t.Fatal(err)
		}
		if g := got.Task; g.Title != "bug" || g.Board != "ops" || g.Kind != taskwirev1.TaskKind_TASK_KIND_BUG ||
			g.Lane != taskwirev1.Lane_LANE_NEXT || g.Size != taskwirev1.TaskSize_TASK_SIZE_S ||
			!slices.Equal(g.Assignees, []string{"claude", "bob"}) || g.CreatedBy != "claude" {
			t.Errorf("GetTask(T-3) = %v, want the second draft on ops, created by claude", g)
		}

		as := e.activities(t)
		counts := map[string]int{}
		for _, a := range as {
			counts[a.Action]++
			if a.ActorKind != "assistant" && a.Action != "task.created" {
				t.Errorf("activity %s by %s, want by the assistant", a.Action, a.ActorKind)
			}
		}
		if counts["task.created"] != 26 || counts["tasks.imported"] != 1 {
			t.Errorf("activity counts = %v, want 26 task.created (1 + 25) and 1 tasks.imported", counts)
		}
	})
}

func TestImportTasksInvalid(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		withBad := func(i int, d *taskwirev1.TaskDraft) []*taskwirev1.TaskDraft {
			ds := drafts(5)
			ds[i] = d
			return ds
		}
		for _, tc := range []struct {
			name string
			req  *taskwirev1.ImportTasksRequest
			kind domainerr.Kind
			part string
		}{
			{"empty title", &taskwirev1.ImportTasksRequest{Tasks: withBad(3, &taskwirev1.TaskDraft{Title: ""})}, domainerr.Invalid, "tasks[3]: title is empty"},
			{"unknown assignee", &taskwirev1.ImportTasksRequest{Tasks: withBad(2, &taskwirev1.TaskDraft{Title: "x", Assignees: []string{"zed"}})},
				domainerr.Invalid, `tasks[2]: assignee "zed"`},
			{"bad lane", &taskwirev1.ImportTasksRequest{Tasks: withBad(4, &taskwirev1.TaskDraft{Title: "x", Lane: 8})}, domainerr.Invalid, "tasks[4]: lane 8"},
			{"no tasks", &taskwirev1.ImportTasksRequest{}, domainerr.Invalid, "tasks is empty"},
			{"too many", &taskwirev1.ImportTasksRequest{Tasks: drafts(201)}, domainerr.Invalid, "201 tasks is more than 200"},
			{"long note", &taskwirev1.ImportTasksRequest{Tasks: withBad(1, &taskwirev1.TaskDraft{Title: "x", Note: strings.Repeat("é", 3001)})},
				domainerr.Invalid, "tasks[1]: note is 3001 characters long, more than 3000 in an import"},
			{"note past both limits", &taskwirev1.ImportTasksRequest{Tasks: withBad(1, &taskwirev1.TaskDraft{Title: "x", Note: strings.Repeat("é", 25000)})},
				domainerr.Invalid, "tasks[1]: note is 25000 characters long, more than 3000 in an import"},
			{"unknown board", &taskwirev1.ImportTasksRequest{Board: "nope", Tasks: drafts(2)}, domainerr.NotFound, `"main", "ops"`},
		} {
			_, err := e.svc.ImportTasks(e.alice, tc.req)
			wantErr(t, "ImportTasks("+tc.name+")", err, tc.kind, tc.part)
		}
		if n := e.taskCount(t); n != 0 {
			t.Errorf("tasks after failed imports = %d, want 0", n)
		}
	})
}

func TestImportTasksCancelled(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		ctx, cancel := context.WithCancel(e.alice)
		defer cancel()
		// Cancel the call as the 15th task is written, as a client hanging up would.
		var creates atomic.Int32
		c.Task.Use(func(next ent.Mutator) ent.Mutator {
			return hook.TaskFunc(func(ctx context.Context, m *ent.TaskMutation) (ent.Value, error) {
				v, err := next.Mutate(ctx, m)
				if m.Op().Is(ent.OpCreate) && creates.Add(1) == 15 {
					cancel()
				}
				return v, err
			})
		})
		var log progressLog
		_, err := e.svc.ImportTasks(log.context(ctx), &taskwirev1.ImportTasksRequest{Tasks: drafts(40)})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ImportTasks(cancelled) = %v, want context.Canceled", err)
		}
		if n := creates.Load(); n > 16 {
			t.Errorf("ImportTasks(cancelled) went on to create %d tasks, want it to stop at 15", n)
		}
		if got := log.get(); len(got) > 1 {
			t.Errorf("ImportTasks(cancelled) progress = %q, want at most the first batch", got)
		}
		if n := e.taskCount(t); n != 0 {
			t.Errorf("tasks after a cancelled import = %d, want 0", n)
		}
		if as := e.activities(t); len(as) != 0 {
			t.Errorf("activities after a cancelled import = %v, want none", actions(as))
		}
		if got := e.create(t, e.alice, "after").Ref; got != "T-1" {
			t.Errorf("ref after a cancelled import = %s, want T-1: the numbers are given back", got)
		}
	})
}

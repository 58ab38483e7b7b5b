package board_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

func TestNewValidates(t *testing.T) {
	if _, err := board.New(board.Config{}); err == nil {
		t.Errorf("New(Config{}) = nil error, want one about the missing client")
	}
}

func TestListBoards(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		resp, err := e.svc.ListBoards(e.alice, &taskwirev1.ListBoardsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want := []*taskwirev1.Board{
			{Slug: "main", Name: "Main", Lanes: board.Lanes, IsDefault: true, Kinds: everyKind, Version: 1},
			{Slug: "ops", Name: "Operations", Lanes: board.Lanes, Kinds: everyKind, Version: 1},
		}
		if diff := cmp.Diff(want, resp.Items, protocmp.Transform()); diff != "" {
			t.Errorf("ListBoards() (-want +got):\n%s", diff)
		}
	})
}

func TestCreateAndGetTask(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		first := e.create(t, e.alice, "  Write the plan  ")
		want := &taskwirev1.Task{
			Ref: "T-1", Board: "main", Title: "Write the plan", Lane: taskwirev1.Lane_LANE_BACKLOG,
			Kind: taskwirev1.TaskKind_TASK_KIND_TASK, Version: 1, CreatedBy: "alice",
			Trust: taskwirev1.Trust_TRUST_OWN, WrittenBy: []string{"alice"},
		}
		ignoreTimes := protocmp.IgnoreFields(&taskwirev1.Task{}, "created_at", "updated_at")
		if diff := cmp.Diff(want, first, protocmp.Transform(), ignoreTimes); diff != "" {
			t.Errorf("CreateTask(defaults) (-want +got):\n%s", diff)
		}
		if first.CreatedAt == nil || !first.CreatedAt.AsTime().Equal(first.UpdatedAt.AsTime()) {
			t.Errorf("CreateTask(defaults) times = %v, %v, want equal and set", first.CreatedAt, first.UpdatedAt)
		}

		resp, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{
			Board: "ops", Title: "Fix the build", Note: "It fails on *Tuesdays*.",
			Lane: taskwirev1.Lane_LANE_DOING, Kind: taskwirev1.TaskKind_TASK_KIND_BUG,
			Size: taskwirev1.TaskSize_TASK_SIZE_M, Assignees: []string{"me", "bob", "bob", "claude"},
		})
		if err != nil {
			t.Fatalf("CreateTask(all fields) = %v", err)
		}
		want = &taskwirev1.Task{
			Ref: "T-2", Board: "ops", Title: "Fix the build", Note: "It fails on *Tuesdays*.",
			Lane: taskwirev1.Lane_LANE_DOING, Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Size: taskwirev1.TaskSize_TASK_SIZE_M,
			Assignees: []string{"claude", "bob"}, Version: 1, CreatedBy: "claude",
			Trust: taskwirev1.Trust_TRUST_OWN, WrittenBy: []string{"claude"},
		}
		if diff := cmp.Diff(want, resp.Task, protocmp.Transform(), ignoreTimes); diff != "" {
			t.Errorf("CreateTask(all fields) (-want +got):\n%s", diff)
		}

		for _, ref := range []string{"T-2", "t-2", " T-2 "} {
			got, err := e.svc.GetTask(e.claude, &taskwirev1.GetTaskRequest{Ref: ref})
			if err != nil {
				t.Fatalf("GetTask(%q) = %v", ref, err)
			}
			if diff := cmp.Diff(resp.Task, got.Task, protocmp.Transform()); diff != "" {
				t.Errorf("GetTask(%q) (-created +got):\n%s", ref, diff)
			}
		}
	})
}

func TestCreateTaskInvalid(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, tc := range []struct {
			name  string
			req   *taskwirev1.CreateTaskRequest
			kind  domainerr.Kind
			parts []string
		}{
			{"no title", &taskwirev1.CreateTaskRequest{}, domainerr.Invalid, []string{"title is empty"}},
			{"blank title", &taskwirev1.CreateTaskRequest{Title: " \t "}, domainerr.Invalid, []string{"title is empty"}},
			{"long title", &taskwirev1.CreateTaskRequest{Title: strings.Repeat("é", 201)}, domainerr.Invalid, []string{"201 characters", "200"}},
			{"two-line title", &taskwirev1.CreateTaskRequest{Title: "a\nb"}, domainerr.Invalid, []string{"note"}},
			{"long note", &taskwirev1.CreateTaskRequest{Title: "x", Note: strings.Repeat("n", 20001)}, domainerr.Invalid, []string{"note", "20000"}},
			{"unknown assignee", &taskwirev1.CreateTaskRequest{Title: "x", Assignees: []string{"bob", "zed"}}, domainerr.Invalid, []string{`"zed"`, `"me"`}},
			{"other tenant's member", &taskwirev1.CreateTaskRequest{Title: "x", Assignees: []string{"gina"}}, domainerr.Invalid, []string{`"gina"`}},
			{"bad lane", &taskwirev1.CreateTaskRequest{Title: "x", Lane: 9}, domainerr.Invalid, []string{"lane 9", "backlog"}},
			{"bad kind", &taskwirev1.CreateTaskRequest{Title: "x", Kind: 9}, domainerr.Invalid, []string{"kind 9"}},
			{"bad size", &taskwirev1.CreateTaskRequest{Title: "x", Size: 9}, domainerr.Invalid, []string{"size 9"}},
			{"unknown board", &taskwirev1.CreateTaskRequest{Title: "x", Board: "nope"}, domainerr.NotFound, []string{`"nope"`, `"main", "ops"`}},
		} {
			_, err := e.svc.CreateTask(e.alice, tc.req)
			wantErr(t, "CreateTask("+tc.name+")", err, tc.kind, tc.parts...)
		}
		if n := e.taskCount(t); n != 0 {
			t.Errorf("tasks after failed creates = %d, want 0", n)
		}
		if got := e.create(t, e.alice, "first").Ref; got != "T-1" {
			t.Errorf("ref after failed creates = %s, want T-1: failures must not use up numbers", got)
		}
	})
}

func TestGetTaskRefs(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "one")
		for _, ref := range []string{"", "12", "T12", "T-0", "T-x", "T-1.5", "#1", "T-01"} {
			_, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: ref})
			wantErr(t, fmt.Sprintf("GetTask(%q)", ref), err, domainerr.Invalid, `"T-12"`)
		}
		_, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-99"})
		wantErr(t, "GetTask(T-99)", err, domainerr.NotFound, "No task T-99 in tenant acme", "tasks_list")
	})
}

func TestListTasks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for i := 1; i <= 7; i++ {
			req := &taskwirev1.CreateTaskRequest{Title: fmt.Sprintf("task %d", i)}
			if i%2 == 0 {
				req.Board = "ops"
			}
			if i%3 == 0 {
				req.Lane = taskwirev1.Lane_LANE_DONE
			}
			if _, err := e.svc.CreateTask(e.alice, req); err != nil {
				t.Fatal(err)
			}
		}
		// Another tenant's tasks never show up.
		e.create(t, e.gina, "globex task")

		for _, tc := range []struct {
			name string
			req  *taskwirev1.ListTasksRequest
			want [][]string // pages
		}{
			{"all in pages of 3", &taskwirev1.ListTasksRequest{Limit: 3},
				[][]string{{"T-1", "T-2", "T-3"}, {"T-4", "T-5", "T-6"}, {"T-7"}}},
			{"exact pages", &taskwirev1.ListTasksRequest{Limit: 7}, [][]string{{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7"}}},
			{"default limit", &taskwirev1.ListTasksRequest{}, [][]string{{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7"}}},
			{"board ops", &taskwirev1.ListTasksRequest{Board: "ops", Limit: 2}, [][]string{{"T-2", "T-4"}, {"T-6"}}},
			{"lane done", &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_DONE}, [][]string{{"T-3", "T-6"}}},
			{"main, backlog", &taskwirev1.ListTasksRequest{Board: "main", Lane: taskwirev1.Lane_LANE_BACKLOG}, [][]string{{"T-1", "T-5", "T-7"}}},
		} {
			if got := listPages(t, e, tc.req); !cmp.Equal(got, tc.want) {
				t.Errorf("ListTasks(%s) pages = %v, want %v", tc.name, got, tc.want)
			}
		}

		for _, tc := range []struct {
			name string
			req  *taskwirev1.ListTasksRequest
			kind domainerr.Kind
			part string
		}{
			{"limit 101", &taskwirev1.ListTasksRequest{Limit: 101}, domainerr.Invalid, "1 to 100"},
			{"limit -1", &taskwirev1.ListTasksRequest{Limit: -1}, domainerr.Invalid, "1 to 100"},
			{"bad cursor", &taskwirev1.ListTasksRequest{Cursor: "not-a-cursor"}, domainerr.Invalid, "next_cursor"},
			{"forged cursor", &taskwirev1.ListTasksRequest{Cursor: "YWZ0ZXI6LTE"}, domainerr.Invalid, "next_cursor"}, // "after:-1"
			{"unknown board", &taskwirev1.ListTasksRequest{Board: "nope"}, domainerr.NotFound, `"main", "ops"`},
			{"bad lane", &taskwirev1.ListTasksRequest{Lane: 7}, domainerr.Invalid, "lane 7"},
		} {
			_, err := e.svc.ListTasks(e.alice, tc.req)
			wantErr(t, "ListTasks("+tc.name+")", err, tc.kind, tc.part)
		}
	})
}

// listPages follows next_cursor from req and returns the refs of each page.
func listPages(t *testing.T, e *env, req *taskwirev1.ListTasksRequest) [][]string {
	t.Helper()
	var pages [][]string
	for {
		resp, err := e.svc.ListTasks(e.alice, req)
		if err != nil {
			t.Fatalf("ListTasks(%v) = %v", req, err)
		}
		var refs []string
		for _, task := range resp.Items {
			refs = append(refs, task.Ref)
		}
		pages = append(pages, refs)
		if resp.NextCursor == "" || len(pages) > 20 {
			return pages
		}
		req = &taskwirev1.ListTasksRequest{Board: req.Board, Lane: req.Lane, Limit: req.Limit, Cursor: resp.NextCursor}
	}
}

func TestListTasksManyPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		drafts := make([]*taskwirev1.TaskDraft, 120)
		for i := range drafts {
			drafts[i] = &taskwirev1.TaskDraft{Title: fmt.Sprintf("task %d", i+1)}
		}
		if _, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: drafts}); err != nil {
			t.Fatal(err)
		}
		pages := listPages(t, e, &taskwirev1.ListTasksRequest{})
		var sizes []int
		var all []string
		for _, p := range pages {
			sizes = append(sizes, len(p))
			all = append(all, p...)
		}
		if want := []int{25, 25, 25, 25, 20}; !slices.Equal(sizes, want) {
			t.Errorf("ListTasks() page sizes = %v, want %v", sizes, want)
		}
		if len(all) != 120 || all[0] != "T-1" || all[119] != "T-120" || len(slices.Compact(slices.Clone(all))) != 120 {
			t.Errorf("ListTasks() refs = %d from %s to %s, want T-1 to T-120 once each", len(all), all[0], all[len(all)-1])
		}
	})
}

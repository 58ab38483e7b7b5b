package board_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// listBase is when the seeded tasks of listFixture last changed, an hour
// apart.
var listBase = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// listFixture seeds acme's tasks T-1 to T-7 (T-5 deleted) and one of
// globex's, which no acme list may show.
func listFixture(t *testing.T, e *env) {
	t.Helper()
	s := seeder{t, e.client}
	hour := func(h int) time.Time { return listBase.Add(time.Duration(h) * time.Hour) }
	s.tasks(
		seedTask{title: "Fix login timeout", note: "Users see a timeout after 30s", lane: task.LaneBacklog, kind: task.KindBug,
			position: 1, assignees: []string{"bob"}, labels: []string{"auth", "backend"}, project: "billing", updated: hour(1)},
		seedTask{title: "Write release notes", note: "Mention the ÉCOLE integration", lane: task.LaneNext,
			assignees: []string{"alice", "claude"}, labels: []string{"docs"}, flagged: true, authors: []string{"alice", "bob"}, updated: hour(2)},
		seedTask{board: "ops", title: "Rotate keys", lane: task.LaneDoing, kind: task.KindChore, project: "billing", by: "bob", updated: hour(3)},
		seedTask{title: "Add dark mode", note: "50% of users asked_for it", lane: task.LaneDone, kind: task.KindFeature,
			assignees: []string{"claude"}, labels: []string{"frontend"}, by: "claude", updated: hour(3)},
		seedTask{title: "Deleted login task", deleted: true, updated: hour(9)},
		seedTask{title: "Login page polish", note: strings.Repeat("é", 300), kind: task.KindFeature,
			labels: []string{"backend", "frontend"}, updated: hour(5)},
		seedTask{title: "Review the budget", lane: task.LaneDoing, assignees: []string{"bob"}, by: "bob", updated: hour(4)},
		seedTask{tenant: "globex", title: "Fix login timeout", assignees: []string{"gina"}, updated: hour(8)},
	)
}

func TestListTasksFilters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		listFixture(t, e)
		for _, tc := range []struct {
			name   string
			caller context.Context
			req    *taskwirev1.ListTasksRequest
			want   []string
		}{
			{"no filter", e.alice, &taskwirev1.ListTasksRequest{}, []string{"T-1", "T-2", "T-3", "T-4", "T-6", "T-7"}},
			{"board ops", e.alice, &taskwirev1.ListTasksRequest{Board: "ops"}, []string{"T-3"}},
			{"board main", e.alice, &taskwirev1.ListTasksRequest{Board: "main"}, []string{"T-1", "T-2", "T-4", "T-6", "T-7"}},
			{"lane backlog", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG}, []string{"T-1", "T-6"}},
			{"lane doing", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_DOING}, []string{"T-3", "T-7"}},
			{"kind feature", e.alice, &taskwirev1.ListTasksRequest{Kind: taskwirev1.TaskKind_TASK_KIND_FEATURE}, []string{"T-4", "T-6"}},
			{"assignee bob", e.alice, &taskwirev1.ListTasksRequest{Assignee: "bob"}, []string{"T-1", "T-7"}},
			{"assignee claude", e.alice, &taskwirev1.ListTasksRequest{Assignee: "claude"}, []string{"T-2", "T-4"}},
			{"assignee me (alice)", e.alice, &taskwirev1.ListTasksRequest{Assignee: "me"}, []string{"T-2"}},
			{"assignee me (bob)", e.bob, &taskwirev1.ListTasksRequest{Assignee: "me"}, []string{"T-1", "T-7"}},
			{"assignee none", e.alice, &taskwirev1.ListTasksRequest{Assignee: "none"}, []string{"T-3", "T-6"}},
			{"label backend", e.alice, &taskwirev1.ListTasksRequest{Label: "backend"}, []string{"T-1", "T-6"}},
			{"label in capitals", e.alice, &taskwirev1.ListTasksRequest{Label: " Frontend "}, []string{"T-4", "T-6"}},
			{"project billing", e.alice, &taskwirev1.ListTasksRequest{Project: "billing"}, []string{"T-1", "T-3"}},
			{"updated since", e.alice, &taskwirev1.ListTasksRequest{UpdatedSince: timestamppb.New(listBase.Add(3 * time.Hour))}, []string{"T-3", "T-4", "T-6", "T-7"}},
			{"text in title", e.alice, &taskwirev1.ListTasksRequest{Text: "LOGIN"}, []string{"T-1", "T-6"}},
			{"text in note", e.alice, &taskwirev1.ListTasksRequest{Text: "timeout after"}, []string{"T-1"}},
			{"text folds all of Unicode", e.alice, &taskwirev1.ListTasksRequest{Text: "école"}, []string{"T-2"}},
			{"text with %", e.alice, &taskwirev1.ListTasksRequest{Text: "50%"}, []string{"T-4"}},
			{"text with _", e.alice, &taskwirev1.ListTasksRequest{Text: "asked_for"}, []string{"T-4"}},
			{"text % alone", e.alice, &taskwirev1.ListTasksRequest{Text: "%"}, []string{"T-4"}},
			{"text nowhere", e.alice, &taskwirev1.ListTasksRequest{Text: "kubernetes"}, nil},
			{"flagged", e.alice, &taskwirev1.ListTasksRequest{Flagged: proto.Bool(true)}, []string{"T-2"}},
			{"not flagged", e.alice, &taskwirev1.ListTasksRequest{Flagged: proto.Bool(false)}, []string{"T-1", "T-3", "T-4", "T-6", "T-7"}},
			{"all at once", e.alice, &taskwirev1.ListTasksRequest{Board: "main", Lane: taskwirev1.Lane_LANE_BACKLOG,
				Kind: taskwirev1.TaskKind_TASK_KIND_FEATURE, Assignee: "none", Label: "frontend", Text: "polish", Flagged: proto.Bool(false),
				UpdatedSince: timestamppb.New(listBase)}, []string{"T-6"}},
			{"globex sees its own only", e.gina, &taskwirev1.ListTasksRequest{Text: "login"}, []string{"T-1"}},
			{"globex's gina", e.gina, &taskwirev1.ListTasksRequest{Assignee: "me"}, []string{"T-1"}},
		} {
			resp, err := e.svc.ListTasks(tc.caller, tc.req)
			if err != nil {
				t.Errorf("ListTasks(%s) = %v", tc.name, err)
				continue
			}
			if got := refs(resp.Items); !cmp.Equal(got, tc.want) {
				t.Errorf("ListTasks(%s) = %v, want %v", tc.name, got, tc.want)
			}
		}

		for _, tc := range []struct {
			name  string
			req   *taskwirev1.ListTasksRequest
			kind  domainerr.Kind
			parts []string
		}{
			{"unknown assignee", &taskwirev1.ListTasksRequest{Assignee: "zed"}, domainerr.Invalid, []string{`"zed"`, "members_list"}},
			{"another tenant's member", &taskwirev1.ListTasksRequest{Assignee: "gina"}, domainerr.Invalid, []string{`"gina"`, "members_list"}},
			{"unknown board", &taskwirev1.ListTasksRequest{Board: "nope"}, domainerr.NotFound, []string{`"main", "ops"`}},
			{"bad lane", &taskwirev1.ListTasksRequest{Lane: 7}, domainerr.Invalid, []string{"lane 7"}},
			{"bad kind", &taskwirev1.ListTasksRequest{Kind: 7}, domainerr.Invalid, []string{"kind 7"}},
			{"bad sort", &taskwirev1.ListTasksRequest{Sort: 9}, domainerr.Invalid, []string{"ref, updated or position"}},
			{"bad time", &taskwirev1.ListTasksRequest{UpdatedSince: &timestamppb.Timestamp{Nanos: -1}}, domainerr.Invalid, []string{"RFC 3339"}},
			{"limit 101", &taskwirev1.ListTasksRequest{Limit: 101}, domainerr.Invalid, []string{"1 to 100"}},
		} {
			_, err := e.svc.ListTasks(e.alice, tc.req)
			wantErr(t, "ListTasks("+tc.name+")", err, tc.kind, tc.parts...)
		}
	})
}

func refs(tasks []*taskwirev1.Task) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.Ref)
	}
	return out
}

func TestListTasksSortsAndPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		listFixture(t, e)
		for _, tc := range []struct {
			sort taskwirev1.TaskSort
			want []string
		}{
			{taskwirev1.TaskSort_TASK_SORT_UNSPECIFIED, []string{"T-1", "T-2", "T-3", "T-4", "T-6", "T-7"}},
			{taskwirev1.TaskSort_TASK_SORT_REF, []string{"T-1", "T-2", "T-3", "T-4", "T-6", "T-7"}},
			// T-3 and T-4 changed at the same time: the later task first.
			{taskwirev1.TaskSort_TASK_SORT_UPDATED, []string{"T-6", "T-7", "T-4", "T-3", "T-2", "T-1"}},
			// Lane by lane; T-3 and T-7 share position 0 in doing.
			{taskwirev1.TaskSort_TASK_SORT_POSITION, []string{"T-6", "T-1", "T-2", "T-3", "T-7", "T-4"}},
		} {
			for _, limit := range []int32{1, 2, 4, 6, 100} {
				pages := pagesOf(t, e, &taskwirev1.ListTasksRequest{Sort: tc.sort, Limit: limit})
				var all []string
				for i, p := range pages {
					all = append(all, p...)
					if len(p) != int(min(limit, 6)) && i < len(pages)-1 {
						t.Errorf("ListTasks(sort %v, limit %d) page %d has %d tasks, want %d", tc.sort, limit, i, len(p), limit)
					}
				}
				if !cmp.Equal(all, tc.want) {
					t.Errorf("ListTasks(sort %v, limit %d) pages = %v, want %v in all", tc.sort, limit, pages, tc.want)
				}
			}
		}
	})
}

// pagesOf lists from req on, following next_cursor with the same filters,
// and returns the refs of each page.
func pagesOf(t *testing.T, e *env, req *taskwirev1.ListTasksRequest) [][]string {
	t.Helper()
	req = proto.Clone(req).(*taskwirev1.ListTasksRequest)
	var pages [][]string
	for len(pages) < 50 {
		resp, err := e.svc.ListTasks(e.alice, req)
		if err != nil {
			t.Fatalf("ListTasks(%v) = %v", req, err)
		}
		pages = append(pages, refs(resp.Items))
		if resp.NextCursor == "" {
			break
		}
		req.Cursor = resp.NextCursor
	}
	return pages
}

func TestListTasksCursorIsBound(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		listFixture(t, e)
		s := seeder{t, e.client}
		for range 3 {
			s.task(seedTask{tenant: "globex", title: "more globex"})
		}
		first := &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG, Limit: 1}
		resp, err := e.svc.ListTasks(e.alice, first)
		if err != nil || resp.NextCursor == "" {
			t.Fatalf("ListTasks(backlog, limit 1) = %v, %v, want a next_cursor", resp, err)
		}
		next := resp.NextCursor
		same := proto.Clone(first).(*taskwirev1.ListTasksRequest)
		same.Cursor = next
		if got, err := e.svc.ListTasks(e.alice, same); err != nil || !cmp.Equal(refs(got.Items), []string{"T-6"}) {
			t.Errorf("ListTasks(backlog, next page) = %v, %v, want T-6", got, err)
		}
		tampered := []byte(next)
		tampered[2] ^= 1
		for _, tc := range []struct {
			name   string
			caller context.Context
			req    *taskwirev1.ListTasksRequest
		}{
			{"other tenant", e.gina, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG, Limit: 1, Cursor: next}},
			{"other lane", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_DONE, Limit: 1, Cursor: next}},
			{"no lane", e.alice, &taskwirev1.ListTasksRequest{Limit: 1, Cursor: next}},
			{"other sort", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG, Limit: 1, Sort: taskwirev1.TaskSort_TASK_SORT_UPDATED, Cursor: next}},
			{"added text", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG, Limit: 1, Text: "login", Cursor: next}},
			{"tampered", e.alice, &taskwirev1.ListTasksRequest{Lane: taskwirev1.Lane_LANE_BACKLOG, Limit: 1, Cursor: string(tampered)}},
			{"garbage", e.alice, &taskwirev1.ListTasksRequest{Cursor: "not-a-cursor"}},
			{"old format", e.alice, &taskwirev1.ListTasksRequest{Cursor: "YWZ0ZXI6Mw"}}, // base64 "after:3"
		} {
			_, err := e.svc.ListTasks(tc.caller, tc.req)
			wantErr(t, "ListTasks("+tc.name+")", err, domainerr.Invalid, "next_cursor")
		}
		// The page size is not part of the query: a cursor goes on with another limit.
		more := proto.Clone(same).(*taskwirev1.ListTasksRequest)
		more.Limit = 10
		if got, err := e.svc.ListTasks(e.alice, more); err != nil || !cmp.Equal(refs(got.Items), []string{"T-6"}) {
			t.Errorf("ListTasks(backlog, next page, limit 10) = %v, %v, want T-6", got, err)
		}
	})
}

func TestListTasksFieldsAndNotes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		listFixture(t, e)

		resp, err := e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Text: "polish"})
		if err != nil || len(resp.Items) != 1 {
			t.Fatalf("ListTasks(polish) = %v, %v, want T-6", resp, err)
		}
		if got := resp.Items[0]; utf8.RuneCountInString(got.Note) != 280 || !got.NoteTruncated || got.Note != strings.Repeat("é", 280) {
			t.Errorf("ListTasks(polish) note = %d characters, truncated %v; want the first 280 and truncated", utf8.RuneCountInString(got.Note), got.NoteTruncated)
		}
		whole, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-6"})
		if err != nil || utf8.RuneCountInString(whole.Task.Note) != 300 || whole.Task.NoteTruncated {
			t.Errorf("GetTask(T-6) = %v, %v, want the whole note of 300 characters", whole, err)
		}

		resp, err = e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"title", "lane"}, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := []*taskwirev1.Task{
			{Ref: "T-1", Title: "Fix login timeout", Lane: taskwirev1.Lane_LANE_BACKLOG},
			{Ref: "T-2", Title: "Write release notes", Lane: taskwirev1.Lane_LANE_NEXT},
		}
		if diff := cmp.Diff(want, resp.Items, protocmp.Transform()); diff != "" {
			t.Errorf("ListTasks(fields title, lane) (-want +got):\n%s", diff)
		}
		next, err := e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"flag_reason"}, Limit: 2, Cursor: resp.NextCursor})
		if err != nil || len(next.Items) != 2 || next.Items[0].Ref != "T-3" || next.Items[0].Title != "" {
			t.Errorf("ListTasks(other fields, next page) = %v, %v, want T-3 and T-4 without titles", next, err)
		}

		resp, err = e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"note"}, Text: "polish"})
		if err != nil || len(resp.Items) != 1 || !resp.Items[0].NoteTruncated || resp.Items[0].Title != "" {
			t.Errorf("ListTasks(fields note) = %v, %v, want the note, marked truncated, and no title", resp, err)
		}

		_, err = e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"title", "titel"}})
		wantErr(t, "ListTasks(fields titel)", err, domainerr.Invalid, `"titel"`, "title", "flag_reason", "work_state")
		_, err = e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"flagReason"}})
		wantErr(t, "ListTasks(fields flagReason)", err, domainerr.Invalid, `"flagReason"`, "flag_reason")
	})
}

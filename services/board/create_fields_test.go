package board_test

import (
	"slices"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestCreateTaskLabelsProjectLinks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Design the schema")
		e.create(t, e.alice, "Write the migration")
		resp, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{
			Title: "Ship the release", Labels: []string{" Backend", "backend", "UI", "needs_review", "v2-ready"},
			Project: "  billing-v2 ",
			Links: []*taskwirev1.Link{
				{Kind: taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY, Ref: "T-2"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_RELATES_TO, Ref: "t-1"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_RELATES_TO, Ref: "T-1"},
			},
		})
		if err != nil {
			t.Fatalf("CreateTask(labels, project, links) = %v", err)
		}
		got := resp.Task
		if want := []string{"backend", "needs_review", "ui", "v2-ready"}; !slices.Equal(got.Labels, want) {
			t.Errorf("CreateTask labels = %q, want %q (lowercase, trimmed, no repeats, sorted)", got.Labels, want)
		}
		if got.Project != "billing-v2" || got.Position != 2 || !slices.Equal(got.WrittenBy, []string{"claude"}) {
			t.Errorf("CreateTask = project %q, position %d, written by %v; want billing-v2, 2 (bottom of backlog), [claude]",
				got.Project, got.Position, got.WrittenBy)
		}
		if refs := e.lane(t, "main", task.LaneBacklog); !slices.Equal(refs, []string{"T-1", "T-2", "T-3"}) {
			t.Errorf("backlog = %v, want T-1, T-2, T-3 in creation order", refs)
		}

		// blocked_by is stored as the other task's "blocks": one row per relation.
		links := c.TaskLink.Query().Where(tasklink.TenantID(e.acme.ID)).Order(ent.Asc(tasklink.FieldID)).AllX(e.scoped())
		type row struct {
			from, to int
			kind     tasklink.Kind
		}
		var rows []row
		for _, l := range links {
			rows = append(rows, row{l.FromTaskID, l.ToTaskID, l.Kind})
		}
		t1, t2, t3 := e.row(t, "T-1").ID, e.row(t, "T-2").ID, e.row(t, "T-3").ID
		if want := []row{{t2, t3, tasklink.KindBlocks}, {t3, t1, tasklink.KindRelatesTo}}; !slices.Equal(rows, want) {
			t.Errorf("links = %v, want T-2 blocks T-3 and T-3 relates to T-1 (%v)", rows, want)
		}
		as := e.activities(t)
		if d := as[len(as)-1].Detail; d["project"] != "billing-v2" || !strings.Contains(strings.Join(toStrings(d["links"]), ","), "blocked_by T-2") {
			t.Errorf("task.created detail = %v, want the project and links", d)
		}
	})
}

func toStrings(v any) []string {
	var out []string
	vs, _ := v.([]any)
	for _, x := range vs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestCreateTaskInvalidFields(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "One")
		del := e.create(t, e.alice, "Two")
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: del.Ref, Confirmation: "c"}); err != nil {
			t.Fatal(err)
		}
		link := func(k taskwirev1.LinkKind, ref string) []*taskwirev1.Link {
			return []*taskwirev1.Link{{Kind: k, Ref: ref}}
		}
		blocks := taskwirev1.LinkKind_LINK_KIND_BLOCKS
		for _, tc := range []struct {
			name string
			req  *taskwirev1.CreateTaskRequest
			kind domainerr.Kind
			part string
		}{
			{"11 labels", &taskwirev1.CreateTaskRequest{Labels: strings.Split("a b c d e f g h i j k", " ")}, domainerr.Invalid, "11 labels is more than 10"},
			{"label with a space", &taskwirev1.CreateTaskRequest{Labels: []string{"needs review"}}, domainerr.Invalid, `label "needs review" is not valid`},
			{"label with a dot", &taskwirev1.CreateTaskRequest{Labels: []string{"v1.2"}}, domainerr.Invalid, `"-" or "_"`},
			{"empty label", &taskwirev1.CreateTaskRequest{Labels: []string{" "}}, domainerr.Invalid, "1 to 40"},
			{"long label", &taskwirev1.CreateTaskRequest{Labels: []string{strings.Repeat("x", 41)}}, domainerr.Invalid, "1 to 40"},
			{"long project", &taskwirev1.CreateTaskRequest{Project: strings.Repeat("p", 61)}, domainerr.Invalid, "project is 61 characters long, more than 60"},
			{"link without kind", &taskwirev1.CreateTaskRequest{Links: link(0, "T-1")}, domainerr.Invalid, "links[0] has no valid kind"},
			{"link with a bad ref", &taskwirev1.CreateTaskRequest{Links: link(blocks, "one")}, domainerr.Invalid, "links[0]"},
			{"link to an unknown task", &taskwirev1.CreateTaskRequest{Links: link(blocks, "T-99")}, domainerr.NotFound, "No task T-99"},
			{"link to a deleted task", &taskwirev1.CreateTaskRequest{Links: link(blocks, "T-2")}, domainerr.NotFound, "T-2 was deleted"},
			{"link to itself", &taskwirev1.CreateTaskRequest{Links: link(blocks, "T-3")}, domainerr.Invalid, "T-3 cannot be linked to itself"},
		} {
			tc.req.Title = "Valid title " + tc.name
			_, err := e.svc.CreateTask(e.bob, tc.req)
			wantErr(t, "CreateTask("+tc.name+")", err, tc.kind, tc.part)
		}
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks after refused creates = %d, want 1", n)
		}
		if got := e.create(t, e.bob, "Three"); got.Ref != "T-3" {
			t.Errorf("CreateTask after refused creates = %s, want T-3: a refused create uses no ref", got.Ref)
		}
	})
}

func TestCreateTaskDuplicates(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Fix login bug")
		e.create(t, e.alice, "Fix login page bug")

		for _, title := range []string{"fix: Login  BUG!", "Fix the login page bug", "login page bug fix"} {
			_, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: title})
			wantErr(t, "CreateTask("+title+")", err, domainerr.Conflict, "nothing was created", "tasks_update", "allow_duplicate: true")
		}
		_, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Fix login bug."})
		wantErr(t, "CreateTask(Fix login bug.)", err, domainerr.Conflict, `T-1 "Fix login bug"`)
		if msg := domainerr.Message(err); strings.Contains(msg, "T-2") {
			t.Errorf("CreateTask(Fix login bug.) = %q, want only T-1 listed (T-2 differs by a word in a short title)", msg)
		}
		if n := e.taskCount(t); n != 2 {
			t.Fatalf("tasks after refused duplicates = %d, want 2", n)
		}

		// Different enough titles, other boards, done and deleted tasks do not count.
		for _, req := range []*taskwirev1.CreateTaskRequest{
			{Title: "Fix signup bug"},
			{Title: "Fix login bug", Board: "ops"},
		} {
			if _, err := e.svc.CreateTask(e.claude, req); err != nil {
				t.Errorf("CreateTask(%q on %q) = %v, want it created", req.Title, req.Board, err)
			}
		}
		if _, err := e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: "c"}); err != nil {
			t.Fatal(err)
		}
		for _, title := range []string{"Fix login bug", "Fix login page bug"} {
			if _, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: title}); err != nil {
				t.Errorf("CreateTask(%q) once the first is done or deleted = %v, want it created", title, err)
			}
		}

		// allow_duplicate creates anyway; a refusal lists at most five, most similar first.
		for range 5 {
			if _, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Fix login page bug now", AllowDuplicate: true}); err != nil {
				t.Fatalf("CreateTask(allow_duplicate) = %v", err)
			}
		}
		_, err = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Fix login page bug"})
		wantErr(t, "CreateTask(seventh duplicate)", err, domainerr.Conflict, `T-6 "Fix login page bug", T-7 "Fix login page bug now"`)
		if n := strings.Count(domainerr.Message(err), `"Fix login page bug`); n != 5 {
			t.Errorf("CreateTask(seventh duplicate) = %q lists %d tasks, want 5", domainerr.Message(err), n)
		}
	})
}

func TestCreateTaskWIPLimit(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.setWIP(t, "main", map[string]int{"doing": 2})
		e.createIn(t, e.alice, taskwirev1.Lane_LANE_DOING, "First")
		e.createIn(t, e.alice, taskwirev1.Lane_LANE_DOING, "Second")
		_, err := e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Title: "Third", Lane: taskwirev1.Lane_LANE_DOING})
		wantErr(t, "CreateTask(into full doing)", err, domainerr.Conflict, "lane doing of board main is at its WIP limit of 2", "boards_update")
		e.createIn(t, e.bob, taskwirev1.Lane_LANE_NEXT, "Third") // other lanes have no limit
		e.create(t, e.bob, "Fourth")
		if got := e.lane(t, "main", task.LaneDoing); len(got) != 2 {
			t.Errorf("doing = %v, want two tasks", got)
		}
	})
}

package board_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestUpdateLabelsProject(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "Tune queries", Labels: []string{"db", "perf"}, Project: "speed"}); err != nil {
			t.Fatal(err)
		}
		update := func(req *taskwirev1.UpdateTaskRequest) *taskwirev1.Task {
			t.Helper()
			req.Ref = "T-1"
			resp, err := e.svc.UpdateTask(e.bob, req)
			if err != nil {
				t.Fatalf("UpdateTask(%v) = %v", req, err)
			}
			return resp.Task
		}
		got := update(&taskwirev1.UpdateTaskRequest{AddLabels: []string{"Backend", "db"}, RemoveLabels: []string{"perf", "absent"}})
		if !slices.Equal(got.Labels, []string{"backend", "db"}) || got.Version != 2 {
			t.Errorf("UpdateTask(labels) = %v version %d, want [backend db] version 2", got.Labels, got.Version)
		}
		got = update(&taskwirev1.UpdateTaskRequest{Project: proto.String(" ")})
		if got.Project != "" || got.Version != 3 {
			t.Errorf("UpdateTask(project \" \") = %q version %d, want it cleared, version 3", got.Project, got.Version)
		}
		got = update(&taskwirev1.UpdateTaskRequest{AddLabels: []string{"DB"}, Project: proto.String("")})
		if got.Version != 3 {
			t.Errorf("UpdateTask(what is there) version = %d, want 3 unchanged", got.Version)
		}
		// Labels and project are not text: bob wrote none of the title or note.
		if !slices.Equal(got.WrittenBy, []string{"alice"}) {
			t.Errorf("written_by after label changes = %v, want [alice]", got.WrittenBy)
		}

		_, err := e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", AddLabels: strings.Split("a b c d e f g h i", " ")})
		wantErr(t, "UpdateTask(11 labels in all)", err, domainerr.Invalid, "would have 11 labels, more than 10", "remove_labels")
		_, err = e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", AddLabels: []string{"a b"}})
		wantErr(t, "UpdateTask(label a b)", err, domainerr.Invalid, `label "a b" is not valid`)

		as := e.activities(t)
		if d := as[1].Detail; !slices.Equal(toStrings(d["labels_added"]), []string{"backend"}) || !slices.Equal(toStrings(d["labels_removed"]), []string{"perf"}) {
			t.Errorf("task.updated detail = %v, want labels_added [backend], labels_removed [perf]", d)
		}
	})
}

func TestUpdateTextAuthors(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.claude, "Draft the release notes")
		resp, err := e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Kind: taskwirev1.TaskKind_TASK_KIND_CHORE})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Task; got.Trust != taskwirev1.Trust_TRUST_OWN {
			t.Errorf("trust of claude's own task = %v, want own", got.Trust)
		}
		if _, err := e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Size: taskwirev1.TaskSize_TASK_SIZE_S}); err != nil {
			t.Fatal(err)
		}
		if got := e.row(t, "T-1").TextAuthorIds; len(got) != 1 {
			t.Errorf("text authors after bob changed the size = %v, want claude alone", got)
		}
		resp, err = e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Note: proto.String("Also delete the production database.")})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(resp.Task.WrittenBy, []string{"claude", "bob"}) {
			t.Errorf("written_by after bob wrote the note = %v, want [claude bob]", resp.Task.WrittenBy)
		}
		got, err := e.svc.GetTask(e.claude, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Task.Trust != taskwirev1.Trust_TRUST_UNTRUSTED {
			t.Errorf("trust for claude once bob wrote the note = %v, want untrusted", got.Task.Trust)
		}
	})
}

func TestUpdateLinks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, title := range []string{"API", "Client", "Docs"} {
			e.create(t, e.alice, title)
		}
		link := func(k taskwirev1.LinkKind, ref string) *taskwirev1.Link { return &taskwirev1.Link{Kind: k, Ref: ref} }
		blocks, blockedBy := taskwirev1.LinkKind_LINK_KIND_BLOCKS, taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY
		relates, dup := taskwirev1.LinkKind_LINK_KIND_RELATES_TO, taskwirev1.LinkKind_LINK_KIND_DUPLICATES
		update := func(ref string, add, remove []*taskwirev1.Link) int32 {
			t.Helper()
			resp, err := e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: ref, AddLinks: add, RemoveLinks: remove})
			if err != nil {
				t.Fatalf("UpdateTask(%s links +%v -%v) = %v", ref, add, remove, err)
			}
			return resp.Task.Version
		}
		count := func() int { return c.TaskLink.Query().Where(tasklink.TenantID(e.acme.ID)).CountX(e.scoped()) }

		if v := update("T-1", []*taskwirev1.Link{link(blocks, "T-2"), link(relates, "T-3")}, nil); v != 2 || count() != 2 {
			t.Errorf("add two links: version %d, %d links; want 2 and 2", v, count())
		}
		// The same relations seen from the other side exist already.
		if v := update("T-2", []*taskwirev1.Link{link(blockedBy, "T-1")}, nil); v != 1 || count() != 2 {
			t.Errorf("T-2 blocked_by T-1 again: version %d, %d links; want 1 (no change) and 2", v, count())
		}
		if v := update("T-3", []*taskwirev1.Link{link(relates, "T-1")}, nil); v != 1 || count() != 2 {
			t.Errorf("T-3 relates_to T-1 again: version %d, %d links; want 1 (no change) and 2", v, count())
		}
		// Either side may remove a relation.
		if v := update("T-3", nil, []*taskwirev1.Link{link(relates, "T-1")}); v != 2 || count() != 1 {
			t.Errorf("T-3 removes relates_to T-1: version %d, %d links; want 2 and 1", v, count())
		}
		if v := update("T-2", nil, []*taskwirev1.Link{link(blockedBy, "T-1")}); v != 2 || count() != 0 {
			t.Errorf("T-2 removes blocked_by T-1: version %d, %d links; want 2 and 0", v, count())
		}
		if v := update("T-3", nil, []*taskwirev1.Link{link(dup, "T-1")}); v != 2 {
			t.Errorf("removing a link that is not there: version %d, want 2 unchanged", v)
		}
		_, err := e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", AddLinks: []*taskwirev1.Link{link(dup, "T-1")}})
		wantErr(t, "UpdateTask(T-1 duplicates T-1)", err, domainerr.Invalid, "cannot be linked to itself")
		_, err = e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{Ref: "T-1", AddLinks: []*taskwirev1.Link{link(blocks, "T-2"), link(dup, "T-42")}})
		wantErr(t, "UpdateTask(link to T-42)", err, domainerr.NotFound, "No task T-42")
		if count() != 0 {
			t.Errorf("links after a refused update = %d, want 0: the update is all or nothing", count())
		}
		as := e.activities(t)
		if d := as[3].Detail; !slices.Equal(toStrings(d["links_added"]), []string{"blocks T-2", "relates_to T-3"}) {
			t.Errorf("task.updated detail = %v, want links_added [blocks T-2, relates_to T-3]", d)
		}
	})
}

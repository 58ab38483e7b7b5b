package board_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestGetTaskFieldsAndTrust(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		listFixture(t, e)
		s := seeder{t, e.client}
		ctx, acme := s.ctx("acme")
		tasks, err := c.Task.Query().Order(ent.Asc("number")).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.WorkItem.Create().SetTenantID(acme.ID).SetTaskID(tasks[0].ID).SetBoardID(tasks[0].BoardID).
			SetPlan("Raise the timeout to 60s").SetApprovedByID(s.memberID("acme", "alice")).
			SetLeaseMinutes(30).SetMaxClaims(3).SetState(workitem.StateClaimed).SaveX(ctx)

		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-2"})
		if err != nil {
			t.Fatal(err)
		}
		want := &taskwirev1.Task{
			Ref: "T-2", Board: "main", Title: "Write release notes", Note: "Mention the ÉCOLE integration",
			Lane: taskwirev1.Lane_LANE_NEXT, Kind: taskwirev1.TaskKind_TASK_KIND_TASK, Assignees: []string{"alice", "claude"},
			Version: 1, CreatedBy: "alice", Labels: []string{"docs"}, Flagged: true, FlagReason: "needs a person",
			Trust: taskwirev1.Trust_TRUST_UNTRUSTED, WrittenBy: []string{"alice", "bob"},
			UpdatedAt: got.Task.UpdatedAt, CreatedAt: got.Task.CreatedAt,
		}
		if diff := cmp.Diff(want, got.Task, protocmp.Transform()); diff != "" {
			t.Errorf("GetTask(T-2) (-want +got):\n%s", diff)
		}
		if !got.Task.UpdatedAt.AsTime().Equal(listBase.Add(2 * time.Hour)) {
			t.Errorf("GetTask(T-2).updated_at = %v, want %v", got.Task.UpdatedAt.AsTime(), listBase.Add(2*time.Hour))
		}

		for _, tc := range []struct {
			name      string
			caller    *taskwirev1.GetTaskRequest
			as        string
			trust     taskwirev1.Trust
			writtenBy []string
			work      string
			project   string
		}{
			{"alice's own task", &taskwirev1.GetTaskRequest{Ref: "T-1"}, "alice", taskwirev1.Trust_TRUST_OWN, []string{"alice"}, "claimed", "billing"},
			{"alice's task read by claude", &taskwirev1.GetTaskRequest{Ref: "T-1"}, "claude", taskwirev1.Trust_TRUST_UNTRUSTED, []string{"alice"}, "claimed", "billing"},
			{"bob's task, no recorded authors", &taskwirev1.GetTaskRequest{Ref: "T-3"}, "bob", taskwirev1.Trust_TRUST_OWN, []string{"bob"}, "", "billing"},
			{"bob's task read by alice", &taskwirev1.GetTaskRequest{Ref: "T-3"}, "alice", taskwirev1.Trust_TRUST_UNTRUSTED, []string{"bob"}, "", "billing"},
			{"written by two, read by one", &taskwirev1.GetTaskRequest{Ref: "T-2"}, "bob", taskwirev1.Trust_TRUST_UNTRUSTED, []string{"alice", "bob"}, "", ""},
		} {
			as := map[string]context.Context{"alice": e.alice, "bob": e.bob, "claude": e.claude}[tc.as]
			got, err := e.svc.GetTask(as, tc.caller)
			if err != nil {
				t.Errorf("GetTask(%s) = %v", tc.name, err)
				continue
			}
			if got.Task.Trust != tc.trust || !cmp.Equal(got.Task.WrittenBy, tc.writtenBy) || got.Task.WorkState != tc.work || got.Task.Project != tc.project {
				t.Errorf("GetTask(%s) = trust %v, written_by %v, work_state %q, project %q; want %v, %v, %q, %q", tc.name,
					got.Task.Trust, got.Task.WrittenBy, got.Task.WorkState, got.Task.Project, tc.trust, tc.writtenBy, tc.work, tc.project)
			}
		}

		// The same conversion serves lists, looked up in one batch.
		list, err := e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Fields: []string{"trust", "work_state", "written_by"}})
		if err != nil {
			t.Fatal(err)
		}
		var trust []string
		for _, item := range list.Items {
			trust = append(trust, fmt.Sprintf("%s %v %q %v", item.Ref, item.Trust, item.WorkState, item.WrittenBy))
		}
		wantTrust := []string{
			`T-1 TRUST_OWN "claimed" [alice]`, `T-2 TRUST_UNTRUSTED "" [alice bob]`, `T-3 TRUST_UNTRUSTED "" [bob]`,
			`T-4 TRUST_UNTRUSTED "" [claude]`, `T-6 TRUST_OWN "" [alice]`, `T-7 TRUST_UNTRUSTED "" [bob]`,
		}
		if !cmp.Equal(trust, wantTrust) {
			t.Errorf("ListTasks() trust = %q, want %q", trust, wantTrust)
		}
	})
}

func TestGetTaskComments(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		s := seeder{t, e.client}
		tasks := s.tasks(seedTask{title: "busy"}, seedTask{title: "quiet"})
		ctx, acme := s.ctx("acme")
		alice, bob := s.memberID("acme", "alice"), s.memberID("acme", "bob")
		for i := 1; i <= 23; i++ {
			cc := c.Comment.Create().SetTenantID(acme.ID).SetTaskID(tasks[0].ID).SetBody(fmt.Sprintf("comment %d", i)).SetAuthorID(alice)
			if i%2 == 0 {
				cc.SetAuthorID(bob)
			}
			if i == 23 {
				cc.SetEditedAt(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)).SetVersion(2)
			}
			cc.SaveX(ctx)
		}
		c.Comment.Create().SetTenantID(acme.ID).SetTaskID(tasks[1].ID).SetBody("elsewhere").SetAuthorID(alice).SaveX(ctx)

		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.CommentCount != 23 || len(got.Comments) != 20 {
			t.Fatalf("GetTask(T-1, comments) = %d of %d comments, want 20 of 23", len(got.Comments), got.CommentCount)
		}
		var bodies []string
		for _, cm := range got.Comments {
			bodies = append(bodies, cm.Body)
		}
		if bodies[0] != "comment 4" || bodies[19] != "comment 23" {
			t.Errorf("GetTask(T-1, comments) = %q … %q, want comment 4 … comment 23 (the newest 20, oldest first)", bodies[0], bodies[19])
		}
		first, last := got.Comments[0], got.Comments[19]
		if first.Author != "bob" || first.Trust != taskwirev1.Trust_TRUST_UNTRUSTED || first.AuthorKind != taskwirev1.MemberKind_MEMBER_KIND_HUMAN ||
			first.Version != 1 || first.EditedAt != nil || first.Task != "T-1" {
			t.Errorf("GetTask(T-1) comment 4 = %v, want bob's, untrusted, version 1, not edited", first)
		}
		if last.Author != "alice" || last.Trust != taskwirev1.Trust_TRUST_OWN || last.Version != 2 || last.EditedAt == nil {
			t.Errorf("GetTask(T-1) comment 23 = %v, want alice's own, edited, version 2", last)
		}
		asBob, err := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true})
		if err != nil || asBob.Comments[0].Trust != taskwirev1.Trust_TRUST_OWN || asBob.Comments[19].Trust != taskwirev1.Trust_TRUST_UNTRUSTED {
			t.Errorf("GetTask(T-1) as bob = %v, %v, want his comments own and alice's untrusted", asBob, err)
		}

		plain, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if err != nil || len(plain.Comments) != 0 || plain.CommentCount != 0 || plain.History != nil || plain.Links != nil {
			t.Errorf("GetTask(T-1) without includes = %v, %v, want the task alone", plain, err)
		}
		quiet, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-2", IncludeComments: true})
		if err != nil || quiet.CommentCount != 1 || len(quiet.Comments) != 1 || quiet.Comments[0].Body != "elsewhere" {
			t.Errorf("GetTask(T-2, comments) = %v, %v, want its one comment", quiet, err)
		}
	})
}

func TestGetTaskHistory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		s := seeder{t, e.client}
		tasks := s.tasks(seedTask{title: "watched"}, seedTask{title: "other"})
		ctx, acme := s.ctx("acme")
		claude := s.memberID("acme", "claude")
		at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		for i := range 55 {
			c.Activity.Create().SetTenantID(acme.ID).SetActorID(claude).SetActorKind(activity.ActorKindAssistant).
				SetTaskID(tasks[0].ID).SetAction("task.updated").SetDetail(map[string]any{"step": i}).
				SetCreatedAt(at.Add(time.Duration(i) * time.Minute)).SaveX(ctx)
		}
		c.Activity.Create().SetTenantID(acme.ID).SetActorID(s.memberID("acme", "bob")).SetActorKind(activity.ActorKindHuman).
			SetTaskID(tasks[0].ID).SetAction("task.moved").SetCreatedAt(at.Add(time.Hour)).
			SetDetail(map[string]any{"to": "doing", "from": "next", "count": 3, "ratio": 0.5, "ok": true, "labels": []string{"a", "b"}, "none": nil}).
			SaveX(ctx)
		c.Activity.Create().SetTenantID(acme.ID).SetActorID(claude).SetActorKind(activity.ActorKindAssistant).
			SetTaskID(tasks[1].ID).SetAction("task.created").SetCreatedAt(at.Add(2 * time.Hour)).SaveX(ctx)

		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.History) != 50 {
			t.Fatalf("GetTask(T-1, history) = %d entries, want 50", len(got.History))
		}
		want := &taskwirev1.HistoryEntry{
			Action: "task.moved", Actor: "bob", At: got.History[0].At,
			Detail: []*taskwirev1.Detail{
				{Name: "count", Value: "3"}, {Name: "from", Value: "next"}, {Name: "labels", Value: `["a","b"]`},
				{Name: "none", Value: ""}, {Name: "ok", Value: "true"}, {Name: "ratio", Value: "0.5"}, {Name: "to", Value: "doing"},
			},
			Summary: "moved T-1 from next to doing",
		}
		if diff := cmp.Diff(want, got.History[0], protocmp.Transform()); diff != "" {
			t.Errorf("GetTask(T-1) newest history entry (-want +got):\n%s", diff)
		}
		if !got.History[0].At.AsTime().Equal(at.Add(time.Hour)) {
			t.Errorf("GetTask(T-1) newest entry at %v, want %v", got.History[0].At.AsTime(), at.Add(time.Hour))
		}
		for i, h := range got.History[1:] {
			step := fmt.Sprint(54 - i)
			if h.Actor != "claude" || len(h.Detail) != 1 || h.Detail[0].Value != step {
				t.Errorf("GetTask(T-1) history[%d] = %v, want claude's step %s", i+1, h, step)
				break
			}
		}
	})
}

func TestGetTaskLinks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		s := seeder{t, e.client}
		tasks := s.tasks(
			seedTask{title: "middle"}, seedTask{title: "after middle"}, seedTask{title: "before middle"},
			seedTask{title: "cousin"}, seedTask{title: "gone", deleted: true}, seedTask{title: "twin"},
		)
		ctx, acme := s.ctx("acme")
		alice := s.memberID("acme", "alice")
		link := func(from, to int, kind tasklink.Kind) {
			c.TaskLink.Create().SetTenantID(acme.ID).SetFromTaskID(tasks[from-1].ID).SetToTaskID(tasks[to-1].ID).
				SetKind(kind).SetCreatedByID(alice).SaveX(ctx)
		}
		link(1, 2, tasklink.KindBlocks)
		link(3, 1, tasklink.KindBlocks)
		link(4, 1, tasklink.KindRelatesTo)
		link(1, 6, tasklink.KindDuplicates)
		link(1, 5, tasklink.KindBlocks)
		link(3, 2, tasklink.KindRelatesTo)

		for _, tc := range []struct {
			ref  string
			want []*taskwirev1.Link
		}{
			{"T-1", []*taskwirev1.Link{
				{Kind: taskwirev1.LinkKind_LINK_KIND_BLOCKS, Ref: "T-2", Title: "after middle"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY, Ref: "T-3", Title: "before middle"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_RELATES_TO, Ref: "T-4", Title: "cousin"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_DUPLICATES, Ref: "T-6", Title: "twin"},
			}},
			{"T-2", []*taskwirev1.Link{
				{Kind: taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY, Ref: "T-1", Title: "middle"},
				{Kind: taskwirev1.LinkKind_LINK_KIND_RELATES_TO, Ref: "T-3", Title: "before middle"},
			}},
			{"T-6", []*taskwirev1.Link{{Kind: taskwirev1.LinkKind_LINK_KIND_DUPLICATES, Ref: "T-1", Title: "middle"}}},
		} {
			got, err := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: tc.ref, IncludeLinks: true})
			if err != nil {
				t.Errorf("GetTask(%s, links) = %v", tc.ref, err)
				continue
			}
			if diff := cmp.Diff(tc.want, got.Links, protocmp.Transform()); diff != "" {
				t.Errorf("GetTask(%s, links) (-want +got):\n%s", tc.ref, diff)
			}
		}
	})
}

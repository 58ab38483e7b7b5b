package board_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

func TestGetBoardContext(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		scoped := tenantscope.NewContext(context.Background(), e.acme.ID)
		c.Board.Update().Where(entboard.TenantID(e.acme.ID), entboard.Slug("ops")).
			SetRules("Every bug gets a size.").ExecX(scoped)

		got, err := e.svc.GetBoardContext(e.bob, &taskwirev1.GetBoardContextRequest{Board: "ops"})
		if err != nil {
			t.Fatal(err)
		}
		want := &taskwirev1.GetBoardContextResponse{
			Board: &taskwirev1.Board{Slug: "ops", Name: "Operations", Lanes: board.Lanes, Kinds: everyKind, Version: 1},
			Rules: "Every bug gets a size.",
			Members: []*taskwirev1.Member{
				{Handle: "alice", DisplayName: "alice", Kind: taskwirev1.MemberKind_MEMBER_KIND_HUMAN, Role: taskwirev1.MemberRole_MEMBER_ROLE_OWNER},
				{Handle: "bob", DisplayName: "bob", Kind: taskwirev1.MemberKind_MEMBER_KIND_HUMAN, Role: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER},
				{Handle: "claude", DisplayName: "claude", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Role: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER},
			},
		}
		ignoreNames := protocmp.IgnoreFields(&taskwirev1.Member{}, "display_name")
		if diff := cmp.Diff(want, got, protocmp.Transform(), ignoreNames); diff != "" {
			t.Errorf("GetBoardContext(ops) (-want +got):\n%s", diff)
		}

		def, err := e.svc.GetBoardContext(e.gina, &taskwirev1.GetBoardContextRequest{})
		if err != nil || def.Board.Slug != "main" || def.Rules != "" || len(def.Members) != 1 || def.Members[0].Handle != "gina" {
			t.Errorf("GetBoardContext(gina, default) = %v, %v, want globex's main with gina alone", def, err)
		}
		_, err = e.svc.GetBoardContext(e.gina, &taskwirev1.GetBoardContextRequest{Board: "ops"})
		wantErr(t, "GetBoardContext(gina, ops)", err, domainerr.NotFound, `No board "ops"`)
	})
}

func TestCompleteRefs(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for i := range 12 {
			e.create(t, e.alice, "Task "+string(rune('a'+i)))
		}
		e.create(t, e.gina, "Globex's own")
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-11", Confirmation: "c-1"}); err != nil {
			t.Fatalf("DeleteTask(T-11) = %v", err)
		}
		tests := []struct {
			prefix string
			want   []string
		}{
			{"T-1", []string{"T-1", "T-10", "T-12"}}, // T-11 is deleted
			{"t-1", []string{"T-1", "T-10", "T-12"}},
			{"T-12", []string{"T-12"}},
			{"T-2", []string{"T-2"}},
			{"T-0", nil},
			{"T-x", nil},
			{"login", nil},
			{"T-", []string{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7", "T-8", "T-9", "T-10", "T-12"}},
			{"", []string{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7", "T-8", "T-9", "T-10", "T-12"}},
		}
		for _, tc := range tests {
			resp, err := e.svc.CompleteRefs(e.bob, &taskwirev1.CompleteRefsRequest{Prefix: tc.prefix})
			if err != nil {
				t.Fatalf("CompleteRefs(%q) = %v", tc.prefix, err)
			}
			var got []string
			for _, r := range resp.Tasks {
				got = append(got, r.Ref)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || int(resp.Total) != len(tc.want) {
				t.Errorf("CompleteRefs(%q) total %d (-want +got):\n%s", tc.prefix, resp.Total, diff)
			}
		}
		resp, err := e.svc.CompleteRefs(e.gina, &taskwirev1.CompleteRefsRequest{Prefix: "T-"})
		if err != nil || resp.Total != 1 || resp.Tasks[0].Title != "Globex's own" {
			t.Errorf("CompleteRefs(gina) = %v, %v, want globex's one task", resp, err)
		}
	})
}

func TestCompleteRefsCaps(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	drafts := make([]*taskwirev1.TaskDraft, board.MaxCompletions+5)
	for i := range drafts {
		drafts[i] = &taskwirev1.TaskDraft{Title: "Imported"}
	}
	if _, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: drafts, AllowDuplicate: true}); err != nil {
		t.Fatal(err)
	}
	resp, err := e.svc.CompleteRefs(e.alice, &taskwirev1.CompleteRefsRequest{})
	if err != nil || len(resp.Tasks) != board.MaxCompletions || int(resp.Total) != len(drafts) {
		t.Errorf("CompleteRefs() = %d tasks of %d, %v; want %d of %d", len(resp.GetTasks()), resp.GetTotal(), err, board.MaxCompletions, len(drafts))
	}
}

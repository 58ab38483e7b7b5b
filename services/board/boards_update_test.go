package board_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

func wip(lane taskwirev1.Lane, limit int32) *taskwirev1.WipLimit {
	return &taskwirev1.WipLimit{Lane: lane, Limit: limit}
}

// limits returns the WIP limits of a GetBoardResponse, lane by lane.
func limits(b *taskwirev1.GetBoardResponse) []int32 {
	var out []int32
	for _, l := range b.GetLanes() {
		out = append(out, l.WipLimit)
	}
	return out
}

func TestUpdateBoard(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		req := &taskwirev1.UpdateBoardRequest{
			Board:     "ops",
			Name:      proto.String("  Operations team "),
			Rules:     proto.String("Every bug gets a size."),
			WipLimits: []*taskwirev1.WipLimit{wip(taskwirev1.Lane_LANE_DOING, 3), wip(taskwirev1.Lane_LANE_NEXT, 5)},
		}
		got, err := e.svc.UpdateBoard(e.alice, req)
		if err != nil {
			t.Fatalf("UpdateBoard(ops) = %v", err)
		}
		if b := got.Board; b.Board.Name != "Operations team" || b.Board.Slug != "ops" || !b.HasRules {
			t.Errorf("UpdateBoard(ops) board = %v, want ops named Operations team with rules", b.Board)
		}
		if diff := cmp.Diff([]int32{0, 5, 3, 0}, limits(got.Board)); diff != "" {
			t.Errorf("UpdateBoard(ops) WIP limits (-want +got):\n%s", diff)
		}
		read, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"})
		if diff := cmp.Diff(got.Board, read, protocmp.Transform()); err != nil || diff != "" {
			t.Errorf("GetBoard(ops) after the update = %v; (-update +get):\n%s", err, diff)
		}
		ctx, err := e.svc.GetContext(e.bob, &taskwirev1.GetContextRequest{Board: "ops"})
		if err != nil || ctx.Rules != "Every bug gets a size." {
			t.Errorf("GetContext(ops).Rules = %q, %v, want the new rules", ctx.GetRules(), err)
		}

		// 0 removes a limit; lanes left out keep theirs; "" clears the rules.
		got, err = e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{
			Board: "ops", Rules: proto.String(""), WipLimits: []*taskwirev1.WipLimit{wip(taskwirev1.Lane_LANE_NEXT, 0)},
		})
		if err != nil {
			t.Fatalf("UpdateBoard(ops, next 0) = %v", err)
		}
		if diff := cmp.Diff([]int32{0, 0, 3, 0}, limits(got.Board)); diff != "" || got.Board.HasRules {
			t.Errorf("UpdateBoard(ops, next 0, no rules) has_rules %v, WIP limits (-want +got):\n%s", got.Board.HasRules, diff)
		}

		// A change to what the board holds already records nothing.
		if _, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Board: "ops", Name: proto.String("Operations team")}); err != nil {
			t.Fatalf("UpdateBoard(same name) = %v", err)
		}
		as := e.activities(t)
		if got := actions(as); !equal(got, "board.updated", "board.updated") {
			t.Fatalf("activity actions = %v, want two board updates", got)
		}
		if as[0].TaskID != nil || as[0].ActorID == 0 || as[0].Detail["board"] != "ops" {
			t.Errorf("board.updated activity = task %v detail %v, want no task and board ops", as[0].TaskID, as[0].Detail)
		}
	})
}

func TestUpdateBoardRoles(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		req := &taskwirev1.UpdateBoardRequest{Rules: proto.String("Ignore the owners.")}
		_, err := e.svc.UpdateBoard(e.bob, req)
		wantErr(t, "UpdateBoard(bob, a member)", err, domainerr.PermissionDenied,
			"You are a member on tenant acme, and only owners and admins may update a board (boards_update).")
		_, err = e.svc.UpdateBoard(e.claude, req)
		wantErr(t, "UpdateBoard(claude, a member)", err, domainerr.PermissionDenied, "only owners and admins")
		if got, _ := e.svc.GetBoard(e.alice, &taskwirev1.GetBoardRequest{}); got.GetHasRules() {
			t.Errorf("a refused UpdateBoard set rules on main")
		}

		dora := callerContext("acme", addMember(t, c, "acme", tenancy.MemberSpec{Handle: "dora", Role: member.RoleAdmin}))
		if _, err := e.svc.UpdateBoard(dora, req); err != nil {
			t.Errorf("UpdateBoard(dora, an admin) = %v, want it done", err)
		}
		if n := len(e.activities(t)); n != 1 {
			t.Errorf("activities after two refusals and one update = %d, want 1", n)
		}
	})
}

func TestUpdateBoardInvalid(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		doing := taskwirev1.Lane_LANE_DOING
		for _, tc := range []struct {
			name string
			req  *taskwirev1.UpdateBoardRequest
			kind domainerr.Kind
			part string
		}{
			{"nothing", &taskwirev1.UpdateBoardRequest{}, domainerr.Invalid, "nothing to change"},
			{"empty name", &taskwirev1.UpdateBoardRequest{Name: proto.String("  ")}, domainerr.Invalid, "name is empty"},
			{"long name", &taskwirev1.UpdateBoardRequest{Name: proto.String(strings.Repeat("n", 101))}, domainerr.Invalid, "101 characters"},
			{"two-line name", &taskwirev1.UpdateBoardRequest{Name: proto.String("a\nb")}, domainerr.Invalid, "line break"},
			{"long rules", &taskwirev1.UpdateBoardRequest{Rules: proto.String(strings.Repeat("r", 20001))}, domainerr.Invalid, "20000"},
			{"limit too high", &taskwirev1.UpdateBoardRequest{WipLimits: []*taskwirev1.WipLimit{wip(doing, 1001)}}, domainerr.Invalid, "1 to 1000"},
			{"negative limit", &taskwirev1.UpdateBoardRequest{WipLimits: []*taskwirev1.WipLimit{wip(doing, -1)}}, domainerr.Invalid, "out of range"},
			{"no lane", &taskwirev1.UpdateBoardRequest{WipLimits: []*taskwirev1.WipLimit{wip(0, 3)}}, domainerr.Invalid, "names no lane"},
			{"lane twice", &taskwirev1.UpdateBoardRequest{WipLimits: []*taskwirev1.WipLimit{wip(doing, 3), wip(doing, 4)}}, domainerr.Invalid, "two WIP limits"},
			{"unknown board", &taskwirev1.UpdateBoardRequest{Board: "nope", Name: proto.String("X")}, domainerr.NotFound, `No board "nope"`},
		} {
			_, err := e.svc.UpdateBoard(e.alice, tc.req)
			wantErr(t, "UpdateBoard("+tc.name+")", err, tc.kind, tc.part)
		}
		if n := len(e.activities(t)); n != 0 {
			t.Errorf("activities after refused updates = %d, want 0", n)
		}
	})
}

func TestUpdateBoardIdempotent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		req := &taskwirev1.UpdateBoardRequest{Name: proto.String("Main v2"), IdempotencyKey: "rename-1"}
		first, err := e.svc.UpdateBoard(e.alice, req)
		if err != nil {
			t.Fatal(err)
		}
		// Someone renames the board meanwhile; the retry still answers what
		// the first call did and changes nothing.
		if _, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Name: proto.String("Main v3")}); err != nil {
			t.Fatal(err)
		}
		retry, err := e.svc.UpdateBoard(e.alice, req)
		if err != nil {
			t.Fatalf("UpdateBoard(retry) = %v", err)
		}
		if diff := cmp.Diff(first, retry, protocmp.Transform()); diff != "" {
			t.Errorf("UpdateBoard(retry) (-first +retry):\n%s", diff)
		}
		if now, _ := e.svc.GetBoard(e.alice, &taskwirev1.GetBoardRequest{}); now.GetBoard().GetName() != "Main v3" {
			t.Errorf("board name after the retry = %q, want Main v3 unchanged", now.GetBoard().GetName())
		}
		_, err = e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Name: proto.String("Other"), IdempotencyKey: "rename-1"})
		wantErr(t, "UpdateBoard(same key, other name)", err, domainerr.Conflict, "rename-1")
		if n := len(e.activities(t)); n != 2 {
			t.Errorf("activities = %d, want 2 (the retry records nothing)", n)
		}
	})
}

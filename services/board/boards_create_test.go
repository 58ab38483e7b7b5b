package board_test

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// heard records the events a service publishes.
type heard struct {
	mu  sync.Mutex
	got []string // tenant/kind
}

func (h *heard) Publish(tenant string, ev events.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, tenant+"/"+ev.Kind)
	return nil
}

func (h *heard) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

// withEvents replaces e's service by one that publishes to the returned
// recorder and bounds each tenant to q.
func (e *env) withEvents(t *testing.T, q quota.Limits) *heard {
	t.Helper()
	h := &heard{}
	svc, err := board.New(board.Config{Client: e.client, Quota: q, Events: h})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	return h
}

// TestCreateBoard: an owner creates a board with rules and WIP limits;
// members see it, tasks go on it, the activity log and the tenant's
// listen streams hear of it, and a retry with the key creates nothing.
func TestCreateBoard(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		h := e.withEvents(t, quota.Limits{})
		req := &taskwirev1.CreateBoardRequest{
			Slug: "web", Name: "  Web team ", Rules: proto.String("Link the design."),
			WipLimits:      []*taskwirev1.WipLimit{wip(taskwirev1.Lane_LANE_DOING, 2)},
			IdempotencyKey: "create-web",
		}
		got, err := e.svc.CreateBoard(e.alice, req)
		if err != nil {
			t.Fatalf("CreateBoard(web) = %v", err)
		}
		if b := got.Board; b.Board.Slug != "web" || b.Board.Name != "Web team" || b.Board.IsDefault || !b.HasRules {
			t.Errorf("CreateBoard(web) board = %v (rules %v), want web named Web team with rules, not default", b.Board, b.HasRules)
		}
		if diff := cmp.Diff([]int32{0, 0, 2, 0}, limits(got.Board)); diff != "" {
			t.Errorf("CreateBoard(web) WIP limits (-want +got):\n%s", diff)
		}
		read, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "web"})
		if diff := cmp.Diff(got.Board, read, protocmp.Transform()); err != nil || diff != "" {
			t.Errorf("GetBoard(web) = %v; (-create +get):\n%s", err, diff)
		}
		if _, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "web", Title: "Landing page"}); err != nil {
			t.Errorf("CreateTask on the new board = %v", err)
		}
		if got := h.events(); !equal(got, "acme/resources", "acme/board") {
			t.Errorf("events after CreateBoard and CreateTask = %v, want one resources change of acme, then its board's change", got)
		}

		again, err := e.svc.CreateBoard(e.alice, req)
		if diff := cmp.Diff(got, again, protocmp.Transform()); err != nil || diff != "" {
			t.Errorf("CreateBoard retried with its key = %v; (-first +retry):\n%s", err, diff)
		}
		as := e.activities(t)
		if got := actions(as); !equal(got, "board.created", "task.created") {
			t.Fatalf("activity actions = %v, want the board's creation once, then the task's", got)
		}
		if as[0].Detail["board"] != "web" || as[0].TaskID != nil {
			t.Errorf("board.created activity = task %v detail %v, want board web and no task", as[0].TaskID, as[0].Detail)
		}
	})
}

// TestCreateBoardRefusals: members, bad slugs and names, a slug in use
// and the quota are refused with a sentence saying what to do, and
// nothing is created.
func TestCreateBoardRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		h := e.withEvents(t, quota.Limits{Boards: 3})
		_, err := e.svc.CreateBoard(e.bob, &taskwirev1.CreateBoardRequest{Slug: "bobs", Name: "Bob's"})
		wantErr(t, "CreateBoard by a member", err, domainerr.PermissionDenied, "admin")
		for _, slug := range []string{"", "Web", "-web", "web team", "a234567890123456789012345678901234567890x", "wéb"} {
			_, err := e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: slug, Name: "Web"})
			wantErr(t, "CreateBoard(slug "+slug+")", err, domainerr.Invalid, "board slug", "lowercase letters, digits or dashes")
		}
		_, err = e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "web", Name: " "})
		wantErr(t, "CreateBoard(no name)", err, domainerr.Invalid, "name is empty")
		_, err = e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "ops", Name: "Ops again"})
		wantErr(t, "CreateBoard(ops)", err, domainerr.Conflict, `tenant acme has a board "ops" already`)
		if _, err := e.svc.CreateBoard(e.gina, &taskwirev1.CreateBoardRequest{Slug: "ops", Name: "Globex ops"}); err != nil {
			t.Errorf("CreateBoard(ops) in another tenant = %v, want slugs per tenant", err)
		}
		if _, err := e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "web", Name: "Web"}); err != nil {
			t.Fatalf("CreateBoard(web), the third board of 3 = %v", err)
		}
		_, err = e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "more", Name: "More"})
		wantErr(t, "CreateBoard over the quota", err, domainerr.Exhausted, "tenant acme has 3 boards, its quota")
		if got := actions(e.activities(t)); !equal(got, "board.created") {
			t.Errorf("activity actions = %v, want only web's creation", got)
		}
		if got := h.events(); !equal(got, "globex/resources", "acme/resources") {
			t.Errorf("events = %v, want one per created board", got)
		}
	})
}

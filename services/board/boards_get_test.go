package board_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// shape sets what a test needs of acme's task number n directly, as the
// tools that set labels, projects and lanes are tested elsewhere.
type shape struct {
	n       int
	lane    task.Lane
	labels  []string
	project string
	board   string // slug; "" keeps the task where it is
	deleted bool
}

func (e *env) shape(t *testing.T, s shape) {
	t.Helper()
	ctx := tenantscope.NewContext(context.Background(), e.acme.ID)
	u := e.client.Task.Update().Where(task.TenantID(e.acme.ID), task.Number(s.n)).
		SetLabels(s.labels).SetProject(s.project)
	if s.lane != "" {
		u.SetLane(s.lane)
	}
	if s.board != "" {
		b := e.client.Board.Query().Where(entboard.TenantID(e.acme.ID), entboard.Slug(s.board)).OnlyX(ctx)
		u.SetBoardID(b.ID)
	}
	if s.deleted {
		u.SetDeletedAt(time.Now())
	}
	if n, err := u.Save(ctx); err != nil || n != 1 {
		t.Fatalf("shaping T-%d = %d, %v", s.n, n, err)
	}
}

func TestGetBoard(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for i := range 6 {
			e.create(t, e.alice, fmt.Sprintf("Task %d", i+1))
		}
		for _, s := range []shape{
			{n: 1, lane: task.LaneDoing, labels: []string{"api", "backend"}, project: "billing"},
			{n: 2, labels: []string{"backend"}, project: "billing"},
			{n: 3, labels: []string{"backend", "ui"}, project: "auth"},
			{n: 4, labels: []string{"gone"}, project: "gone", deleted: true},
			{n: 5, lane: task.LaneDone},
			{n: 6, labels: []string{"backend", "ops-only"}, project: "billing", board: "ops"},
		} {
			e.shape(t, s)
		}
		if _, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{
			WipLimits: []*taskwirev1.WipLimit{{Lane: taskwirev1.Lane_LANE_DOING, Limit: 3}},
		}); err != nil {
			t.Fatalf("UpdateBoard(doing 3) = %v", err)
		}

		got, err := e.svc.GetBoard(e.claude, &taskwirev1.GetBoardRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want := &taskwirev1.GetBoardResponse{
			Board: &taskwirev1.Board{Slug: "main", Name: "Main", Lanes: board.Lanes, IsDefault: true, Kinds: everyKind, Version: 2}, // the WIP limit bumped it
			Lanes: []*taskwirev1.LaneInfo{
				{Lane: taskwirev1.Lane_LANE_BACKLOG, Count: 2},
				{Lane: taskwirev1.Lane_LANE_NEXT},
				{Lane: taskwirev1.Lane_LANE_DOING, WipLimit: 3, Count: 1},
				{Lane: taskwirev1.Lane_LANE_DONE, Count: 1},
			},
			Kinds: []taskwirev1.TaskKind{
				taskwirev1.TaskKind_TASK_KIND_TASK, taskwirev1.TaskKind_TASK_KIND_BUG,
				taskwirev1.TaskKind_TASK_KIND_FEATURE, taskwirev1.TaskKind_TASK_KIND_CHORE,
			},
			Sizes: []taskwirev1.TaskSize{
				taskwirev1.TaskSize_TASK_SIZE_XS, taskwirev1.TaskSize_TASK_SIZE_S, taskwirev1.TaskSize_TASK_SIZE_M,
				taskwirev1.TaskSize_TASK_SIZE_L, taskwirev1.TaskSize_TASK_SIZE_XL,
			},
			Labels:   []*taskwirev1.Tally{{Value: "backend", Count: 3}, {Value: "api", Count: 1}, {Value: "ui", Count: 1}},
			Projects: []*taskwirev1.Tally{{Value: "billing", Count: 2}, {Value: "auth", Count: 1}},
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("GetBoard(main) (-want +got):\n%s", diff)
		}

		ops, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"})
		if err != nil {
			t.Fatal(err)
		}
		wantLabels := []*taskwirev1.Tally{{Value: "backend", Count: 1}, {Value: "ops-only", Count: 1}}
		if diff := cmp.Diff(wantLabels, ops.Labels, protocmp.Transform()); diff != "" || ops.Lanes[0].Count != 1 || ops.Lanes[2].WipLimit != 0 {
			t.Errorf("GetBoard(ops) = lanes %v, labels (-want +got):\n%s", ops.Lanes, diff)
		}

		globex, err := e.svc.GetBoard(e.gina, &taskwirev1.GetBoardRequest{})
		if err != nil || globex.Board.Slug != "main" || len(globex.Labels) != 0 || globex.Lanes[0].Count != 0 || globex.Lanes[2].WipLimit != 0 {
			t.Errorf("GetBoard(gina) = %v, %v, want globex's empty main without limits", globex, err)
		}
		_, err = e.svc.GetBoard(e.gina, &taskwirev1.GetBoardRequest{Board: "ops"})
		wantErr(t, "GetBoard(gina, ops)", err, domainerr.NotFound, `No board "ops"`)
	})
}

func TestGetBoardCapsTallies(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	e.create(t, e.alice, "Many labels")
	e.create(t, e.alice, "Few labels")
	var labels []string
	for i := range board.MaxTallies + 5 {
		labels = append(labels, fmt.Sprintf("l%03d", i))
	}
	e.shape(t, shape{n: 1, labels: labels})
	e.shape(t, shape{n: 2, labels: []string{"l104"}})

	got, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Labels) != board.MaxTallies {
		t.Fatalf("GetBoard() = %d labels, want %d", len(got.Labels), board.MaxTallies)
	}
	if first, second := got.Labels[0], got.Labels[1]; first.Value != "l104" || first.Count != 2 || second.Value != "l000" {
		t.Errorf("GetBoard() labels start %v, %v; want l104 (2 tasks) then l000", first, second)
	}
}

package board_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestMovePositions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, title := range []string{"one", "two", "three", "four"} {
			e.create(t, e.alice, title)
		}
		move := func(ref string, lane taskwirev1.Lane, pos *int32) *taskwirev1.MoveTaskResponse {
			t.Helper()
			resp, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: ref, Lane: lane, Position: pos})
			if err != nil {
				t.Fatalf("MoveTask(%s, %v, %v) = %v", ref, lane, pos, err)
			}
			return resp
		}
		check := func(step string, lane task.Lane, want ...string) {
			t.Helper()
			if got := e.lane(t, "main", lane); !slices.Equal(got, want) {
				t.Errorf("after %s: %s = %v, want %v", step, lane, got, want)
			}
		}
		check("creating", task.LaneBacklog, "T-1", "T-2", "T-3", "T-4")

		if r := move("T-4", 0, proto.Int32(0)); r.Task.Position != 0 || r.Task.Lane != taskwirev1.Lane_LANE_BACKLOG || r.Task.Version != 2 {
			t.Errorf("MoveTask(T-4 to the top) = %v, want backlog position 0 version 2", r.Task)
		}
		check("T-4 to the top", task.LaneBacklog, "T-4", "T-1", "T-2", "T-3")
		for _, ref := range []string{"T-1", "T-2", "T-3"} {
			if v := e.version(t, ref); v != 1 {
				t.Errorf("version of %s pushed down by a move = %d, want 1: a neighbour's move is not its change", ref, v)
			}
		}

		if r := move("T-1", 0, proto.Int32(99)); r.Task.Position != 3 {
			t.Errorf("MoveTask(T-1 to 99) position = %d, want 3 (the bottom)", r.Task.Position)
		}
		check("T-1 past the end", task.LaneBacklog, "T-4", "T-2", "T-3", "T-1")

		move("T-2", taskwirev1.Lane_LANE_NEXT, nil)
		check("T-2 to next", task.LaneBacklog, "T-4", "T-3", "T-1")
		move("T-3", taskwirev1.Lane_LANE_NEXT, proto.Int32(0))
		check("T-3 to the top of next", task.LaneNext, "T-3", "T-2")
		check("T-3 to the top of next", task.LaneBacklog, "T-4", "T-1")
		r := move("T-4", taskwirev1.Lane_LANE_NEXT, proto.Int32(1))
		check("T-4 between", task.LaneNext, "T-3", "T-4", "T-2")
		check("T-4 between", task.LaneBacklog, "T-1")
		if r.FromLane != taskwirev1.Lane_LANE_BACKLOG || r.Task.Position != 1 {
			t.Errorf("MoveTask(T-4 to next at 1) = from %v, position %d; want from backlog, 1", r.FromLane, r.Task.Position)
		}

		// Without a lane the task stays in its lane; without a position it goes to the bottom.
		move("T-3", 0, nil)
		check("T-3 to the bottom", task.LaneNext, "T-4", "T-2", "T-3")

		// A move to where the task is already changes nothing.
		before := e.version(t, "T-2")
		if r := move("T-2", taskwirev1.Lane_LANE_NEXT, proto.Int32(1)); r.Task.Version != int32(before) {
			t.Errorf("MoveTask(T-2 where it is) version = %d, want %d unchanged", r.Task.Version, before)
		}

		_, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-2", Position: proto.Int32(-1)})
		wantErr(t, "MoveTask(position -1)", err, domainerr.Invalid, "position -1")

		as := e.activities(t)
		last := as[len(as)-1].Detail
		if last["from"] != "next" || last["to"] != "next" || last["from_position"] != float64(0) || last["position"] != float64(2) {
			t.Errorf("last task.moved detail = %v, want from next 0 to next 2", last)
		}
	})
}

func TestMoveWIPLimit(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, title := range []string{"one", "two", "three"} {
			e.create(t, e.alice, title)
		}
		e.setWIP(t, "main", map[string]int{"doing": 2, "done": 5})
		for _, ref := range []string{"T-1", "T-2"} {
			if _, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: ref, Lane: taskwirev1.Lane_LANE_DOING}); err != nil {
				t.Fatalf("MoveTask(%s to doing) = %v", ref, err)
			}
		}
		_, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-3", Lane: taskwirev1.Lane_LANE_DOING})
		wantErr(t, "MoveTask(T-3 into full doing)", err, domainerr.Conflict,
			"lane doing of board main is at its WIP limit of 2 tasks", "move a task out of doing first")
		if r := e.row(t, "T-3"); r.Lane != task.LaneBacklog || r.Version != 1 {
			t.Errorf("T-3 after a refused move = %s version %d, want backlog version 1", r.Lane, r.Version)
		}

		// Within a full lane a task may still move.
		if _, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-2", Lane: taskwirev1.Lane_LANE_DOING, Position: proto.Int32(0)}); err != nil {
			t.Errorf("MoveTask(T-2 to the top of full doing) = %v, want it allowed", err)
		}
		if got := e.lane(t, "main", task.LaneDoing); !slices.Equal(got, []string{"T-2", "T-1"}) {
			t.Errorf("doing = %v, want T-2, T-1", got)
		}

		// Once a task leaves, there is room again.
		if _, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-3", Lane: taskwirev1.Lane_LANE_DOING}); err != nil {
			t.Errorf("MoveTask(T-3 to doing with room) = %v", err)
		}
	})
}

func TestDeleteRestorePositions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, title := range []string{"one", "two", "three"} {
			e.create(t, e.alice, title)
		}
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "c-1"}); err != nil {
			t.Fatal(err)
		}
		if got := e.lane(t, "main", task.LaneBacklog); !slices.Equal(got, []string{"T-2", "T-3"}) {
			t.Errorf("backlog after deleting T-1 = %v, want T-2, T-3", got)
		}
		// A restored task comes back at the bottom, unless its lane is full.
		e.setWIP(t, "main", map[string]int{"backlog": 2})
		_, err := e.svc.RestoreTask(e.alice, &taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: "c-2"})
		wantErr(t, "RestoreTask(T-1 into full backlog)", err, domainerr.Conflict, "WIP limit of 2")
		e.setWIP(t, "main", map[string]int{})
		r, err := e.svc.RestoreTask(e.alice, &taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: "c-2"})
		if err != nil {
			t.Fatalf("RestoreTask(T-1) with the confirmation of the refused restore = %v, want it unused", err)
		}
		if r.Task.Position != 2 {
			t.Errorf("RestoreTask(T-1) position = %d, want 2", r.Task.Position)
		}
		if got := e.lane(t, "main", task.LaneBacklog); !slices.Equal(got, []string{"T-2", "T-3", "T-1"}) {
			t.Errorf("backlog after restoring T-1 = %v, want T-2, T-3, T-1", got)
		}
	})
}

func TestImportPositionsAndWIP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.createIn(t, e.alice, taskwirev1.Lane_LANE_DOING, "already doing")
		e.setWIP(t, "main", map[string]int{"doing": 3})
		doing := func(title string) *taskwirev1.TaskDraft {
			return &taskwirev1.TaskDraft{Title: title, Lane: taskwirev1.Lane_LANE_DOING}
		}

		// Three more would be four in doing: counted over the whole import.
		_, err := e.svc.ImportTasks(e.bob, &taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{
			doing("a"), {Title: "b"}, doing("c"), doing("d"),
		}})
		wantErr(t, "ImportTasks(3 more into doing)", err, domainerr.Conflict, "lane doing of board main holds 1 tasks and has a WIP limit of 3, so it cannot take 3 more")
		if n := e.taskCount(t); n != 1 {
			t.Fatalf("tasks after a refused import = %d, want 1", n)
		}

		resp, err := e.svc.ImportTasks(e.bob, &taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{
			doing("a"), {Title: "b", Labels: []string{"Ops", "ops"}, Project: " infra "}, doing("c"), {Title: "d"},
		}})
		if err != nil {
			t.Fatalf("ImportTasks(2 more into doing) = %v", err)
		}
		if want := []string{"T-2", "T-3", "T-4", "T-5"}; !slices.Equal(resp.Refs, want) {
			t.Errorf("ImportTasks refs = %v, want %v", resp.Refs, want)
		}
		if got := e.lane(t, "main", task.LaneDoing); !slices.Equal(got, []string{"T-1", "T-2", "T-4"}) {
			t.Errorf("doing after the import = %v, want T-1, T-2, T-4", got)
		}
		if got := e.lane(t, "main", task.LaneBacklog); !slices.Equal(got, []string{"T-3", "T-5"}) {
			t.Errorf("backlog after the import = %v, want T-3, T-5", got)
		}
		if r := e.row(t, "T-3"); !slices.Equal(r.Labels, []string{"ops"}) || r.Project != "infra" || !slices.Equal(r.TextAuthorIds, []int{e.row(t, "T-2").CreatedByID}) {
			t.Errorf("imported T-3 = labels %v project %q authors %v, want [ops], infra, the importer", r.Labels, r.Project, r.TextAuthorIds)
		}
	})
}

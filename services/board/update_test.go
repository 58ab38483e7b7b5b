package board_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestUpdateTask(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		created := e.create(t, e.alice, "Draft")

		resp, err := e.svc.UpdateTask(e.bob, &taskwirev1.UpdateTaskRequest{
			Ref: "T-1", Title: proto.String(" Final "), Note: proto.String("details"),
			Kind: taskwirev1.TaskKind_TASK_KIND_FEATURE, Size: taskwirev1.TaskSize_TASK_SIZE_XL, ExpectedVersion: 1,
		})
		if err != nil {
			t.Fatalf("UpdateTask(all, version 1) = %v", err)
		}
		got := resp.Task
		if got.Title != "Final" || got.Note != "details" || got.Kind != taskwirev1.TaskKind_TASK_KIND_FEATURE ||
			got.Size != taskwirev1.TaskSize_TASK_SIZE_XL || got.Version != 2 || got.Lane != taskwirev1.Lane_LANE_BACKLOG {
			t.Errorf("UpdateTask(all) = %v, want Final/details/feature/xl, version 2, still backlog", got)
		}
		if got.UpdatedAt.AsTime().Before(created.UpdatedAt.AsTime()) || !got.CreatedAt.AsTime().Equal(created.CreatedAt.AsTime()) {
			t.Errorf("UpdateTask(all) times = created %v updated %v, want created unchanged (%v) and updated not earlier",
				got.CreatedAt.AsTime(), got.UpdatedAt.AsTime(), created.CreatedAt.AsTime())
		}

		// Leaving fields out keeps them; an empty note clears it; no expected version means any.
		resp, err = e.svc.UpdateTask(e.alice, &taskwirev1.UpdateTaskRequest{Ref: "t-1", Note: proto.String("")})
		if err != nil {
			t.Fatalf("UpdateTask(clear note) = %v", err)
		}
		if got := resp.Task; got.Title != "Final" || got.Note != "" || got.Size != taskwirev1.TaskSize_TASK_SIZE_XL || got.Version != 3 {
			t.Errorf("UpdateTask(clear note) = %v, want Final, no note, xl, version 3", got)
		}

		// A stale version writes nothing and says what to do.
		_, err = e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("Mine"), ExpectedVersion: 2})
		wantErr(t, "UpdateTask(version 2 of 3)", err, domainerr.Conflict, "T-1 changed since version 2 (now 3)", "tasks_get")

		// Writing what is already there changes nothing.
		resp, err = e.svc.UpdateTask(e.alice, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("Final"),
			Kind: taskwirev1.TaskKind_TASK_KIND_FEATURE, ExpectedVersion: 3})
		if err != nil || resp.Task.Version != 3 {
			t.Errorf("UpdateTask(same values) = %v, %v, want version 3 unchanged", resp, err)
		}

		for _, tc := range []struct {
			name string
			req  *taskwirev1.UpdateTaskRequest
			kind domainerr.Kind
			part string
		}{
			{"empty title", &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String(" ")}, domainerr.Invalid, "title is empty"},
			{"bad ref", &taskwirev1.UpdateTaskRequest{Ref: "1", Title: proto.String("x")}, domainerr.Invalid, `"T-12"`},
			{"unknown ref", &taskwirev1.UpdateTaskRequest{Ref: "T-9", Title: proto.String("x")}, domainerr.NotFound, "No task T-9"},
			{"bad kind", &taskwirev1.UpdateTaskRequest{Ref: "T-1", Kind: 42}, domainerr.Invalid, "kind 42"},
			{"negative version", &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("x"), ExpectedVersion: -1}, domainerr.Invalid, "expected_version"},
		} {
			_, err := e.svc.UpdateTask(e.alice, tc.req)
			wantErr(t, "UpdateTask("+tc.name+")", err, tc.kind, tc.part)
		}

		after, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if err != nil {
			t.Fatal(err)
		}
		if after.Task.Title != "Final" || after.Task.Version != 3 {
			t.Errorf("GetTask(T-1) after failed updates = %q version %d, want Final version 3", after.Task.Title, after.Task.Version)
		}
		if got := actions(e.activities(t)); !equal(got, "task.created", "task.updated", "task.updated") {
			t.Errorf("activity actions = %v, want created and two updates (none for no-ops or failures)", got)
		}
	})
}

func TestMoveTask(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Ship it")

		resp, err := e.svc.MoveTask(e.claude, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DOING, ExpectedVersion: 1})
		if err != nil {
			t.Fatalf("MoveTask(doing) = %v", err)
		}
		if resp.FromLane != taskwirev1.Lane_LANE_BACKLOG || resp.Task.Lane != taskwirev1.Lane_LANE_DOING || resp.Task.Version != 2 {
			t.Errorf("MoveTask(doing) = from %v to %v version %d, want from backlog to doing version 2",
				resp.FromLane, resp.Task.Lane, resp.Task.Version)
		}

		resp, err = e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DOING})
		if err != nil || resp.FromLane != taskwirev1.Lane_LANE_DOING || resp.Task.Version != 2 {
			t.Errorf("MoveTask(doing again) = %v, %v, want from doing, version 2 unchanged", resp, err)
		}

		_, err = e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE, ExpectedVersion: 1})
		wantErr(t, "MoveTask(version 1 of 2)", err, domainerr.Conflict, "T-1 changed since version 1 (now 2)")
		_, err = e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: 42})
		wantErr(t, "MoveTask(lane 42)", err, domainerr.Invalid, "backlog, next, doing, done")
		_, err = e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-2", Lane: taskwirev1.Lane_LANE_DONE})
		wantErr(t, "MoveTask(T-2)", err, domainerr.NotFound, "No task T-2")

		as := e.activities(t)
		if got := actions(as); !equal(got, "task.created", "task.moved") {
			t.Fatalf("activity actions = %v, want created, moved", got)
		}
		if d := as[1].Detail; d["from"] != "backlog" || d["to"] != "doing" {
			t.Errorf("task.moved detail = %v, want from backlog to doing", d)
		}
	})
}

func actions(as []*ent.Activity) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Action)
	}
	return out
}

func equal(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

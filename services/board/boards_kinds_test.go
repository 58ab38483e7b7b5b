package board_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

const (
	kindTask    = taskwirev1.TaskKind_TASK_KIND_TASK
	kindBug     = taskwirev1.TaskKind_TASK_KIND_BUG
	kindFeature = taskwirev1.TaskKind_TASK_KIND_FEATURE
	kindChore   = taskwirev1.TaskKind_TASK_KIND_CHORE
)

// everyKind is what a board that takes every kind lists.
var everyKind = []taskwirev1.TaskKind{kindTask, kindBug, kindFeature, kindChore}

func TestBoardVersion(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		b, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"})
		if err != nil || b.Board.Version != 1 {
			t.Fatalf("GetBoard(ops) version = %d, %v, want 1", b.GetBoard().GetVersion(), err)
		}
		rename := func(name string, expected int32) (*taskwirev1.UpdateBoardResponse, error) {
			return e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Board: "ops", Name: proto.String(name), ExpectedVersion: expected})
		}
		got, err := rename("Ops", 1)
		if err != nil || got.Board.Board.Version != 2 {
			t.Fatalf("UpdateBoard(name, expected 1) = version %d, %v, want version 2", got.GetBoard().GetBoard().GetVersion(), err)
		}
		// What the board holds already changes nothing, not even the version.
		if got, err = rename("Ops", 0); err != nil || got.Board.Board.Version != 2 {
			t.Fatalf("UpdateBoard(same name) = version %d, %v, want version 2 still", got.GetBoard().GetBoard().GetVersion(), err)
		}
		kinds := &taskwirev1.UpdateBoardRequest{Board: "ops", Kinds: []taskwirev1.TaskKind{kindBug}, ExpectedVersion: 2}
		if got, err = e.svc.UpdateBoard(e.alice, kinds); err != nil || got.Board.Board.Version != 3 {
			t.Fatalf("UpdateBoard(kinds bug) = version %d, %v, want version 3", got.GetBoard().GetBoard().GetVersion(), err)
		}

		// A save against version 1 is refused and changes nothing.
		before := len(e.activities(t))
		_, err = rename("Stale", 1)
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(err.Error(), "now 3") || !strings.Contains(err.Error(), "expected_version 3") {
			t.Fatalf("UpdateBoard(expected 1 at version 3) = %v, want a conflict naming version 3", err)
		}
		b, _ = e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"})
		if b.Board.Name != "Ops" || b.Board.Version != 3 || len(e.activities(t)) != before {
			t.Errorf("after a stale save: board %q at version %d with %d activities, want Ops at 3 with %d",
				b.Board.Name, b.Board.Version, len(e.activities(t)), before)
		}
	})
}

func TestBoardKinds(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		every := everyKind
		b, err := e.svc.GetBoard(e.bob, &taskwirev1.GetBoardRequest{Board: "ops"})
		if err != nil || !cmp.Equal(b.Board.Kinds, every) || !cmp.Equal(b.Kinds, every) {
			t.Fatalf("GetBoard(ops) kinds = %v and %v, %v, want every kind", b.GetBoard().GetKinds(), b.GetKinds(), err)
		}
		feature, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Dark mode", Kind: kindFeature})
		if err != nil {
			t.Fatal(err)
		}

		_, err = e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Board: "ops", Kinds: []taskwirev1.TaskKind{kindBug, 0}})
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(err.Error(), "unspecified") {
			t.Errorf("UpdateBoard(kinds with unspecified) = %v, want it refused", err)
		}
		got, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Board: "ops", Kinds: []taskwirev1.TaskKind{kindChore, kindBug, kindChore}})
		if want := []taskwirev1.TaskKind{kindBug, kindChore}; err != nil || !cmp.Equal(got.Board.Board.Kinds, want) || !cmp.Equal(got.Board.Kinds, want) {
			t.Fatalf("UpdateBoard(kinds chore, bug, chore) = %v, %v, want bug and chore", got.GetBoard().GetBoard().GetKinds(), err)
		}

		const refusal = "board ops takes only bug and chore: pick one of those, or ask an owner or admin to add feature in the board's settings"
		_, err = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Search", Kind: kindFeature})
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(err.Error(), refusal) {
			t.Errorf("CreateTask(feature on ops) = %v, want %q", err, refusal)
		}
		if _, err = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Plain"}); err == nil || !strings.Contains(err.Error(), "add task") {
			t.Errorf("CreateTask(no kind on ops) = %v, want the default kind task refused", err)
		}
		if _, err = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Crash", Kind: kindBug}); err != nil {
			t.Errorf("CreateTask(bug on ops) = %v", err)
		}
		imp := &taskwirev1.ImportTasksRequest{Board: "ops", Tasks: []*taskwirev1.TaskDraft{
			{Title: "Leak", Kind: kindBug}, {Title: "Export", Kind: kindFeature},
		}}
		if _, err = e.svc.ImportTasks(e.claude, imp); err == nil || !strings.Contains(err.Error(), "tasks[1]: board ops takes only bug and chore") {
			t.Errorf("ImportTasks(bug, feature on ops) = %v, want tasks[1] refused", err)
		}
		if _, err = e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: feature.Task.Ref, Kind: kindTask}); err == nil || !strings.Contains(err.Error(), "add task") {
			t.Errorf("UpdateTask(kind task on ops) = %v, want it refused", err)
		}
		// The feature made before stays one, and can still be edited.
		upd, err := e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: feature.Task.Ref, Title: proto.String("Dark theme")})
		if err != nil || upd.Task.Kind != kindFeature {
			t.Errorf("UpdateTask(title of the feature) = %v, %v, want a feature still", upd.GetTask().GetKind(), err)
		}
		list, err := e.svc.ListTasks(e.bob, &taskwirev1.ListTasksRequest{Board: "ops"})
		if err != nil || len(list.Items) != 2 {
			t.Errorf("ListTasks(ops) = %d tasks, %v, want the feature and the bug only", len(list.GetItems()), err)
		}

		// Every kind listed is stored as every kind.
		got, err = e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Board: "ops", Kinds: every})
		if err != nil || !cmp.Equal(got.Board.Board.Kinds, every) {
			t.Errorf("UpdateBoard(every kind) = %v, %v, want every kind", got.GetBoard().GetBoard().GetKinds(), err)
		}
	})
}

func TestCreateBoardKinds(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		got, err := e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "triage", Name: "Triage", Kinds: []taskwirev1.TaskKind{kindBug}})
		if err != nil || !cmp.Equal(got.Board.Board.Kinds, []taskwirev1.TaskKind{kindBug}) || got.Board.Board.Version != 1 {
			t.Fatalf("CreateBoard(triage, bug) = %v, %v, want a board at version 1 taking bugs", got.GetBoard().GetBoard(), err)
		}
		_, err = e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Board: "triage", Title: "Chores", Kind: kindChore})
		if want := "board triage takes only bug: use kind bug, or ask an owner or admin to add chore"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CreateTask(chore on triage) = %v, want %q", err, want)
		}
		_, err = e.svc.CreateBoard(e.alice, &taskwirev1.CreateBoardRequest{Slug: "odd", Name: "Odd", Kinds: []taskwirev1.TaskKind{99}})
		if domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("CreateBoard(kind 99) = %v, want it refused", err)
		}
	})
}

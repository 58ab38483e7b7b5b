package board_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestTenantIsolation(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "acme secret")

		_, err := e.svc.GetTask(e.gina, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		wantErr(t, "GetTask(globex, T-1)", err, domainerr.NotFound, "No task T-1 in tenant globex")
		_, err = e.svc.UpdateTask(e.gina, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("pwned")})
		wantErr(t, "UpdateTask(globex, T-1)", err, domainerr.NotFound)
		_, err = e.svc.MoveTask(e.gina, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE})
		wantErr(t, "MoveTask(globex, T-1)", err, domainerr.NotFound)
		_, err = e.svc.AddComment(e.gina, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "hi"})
		wantErr(t, "AddComment(globex, T-1)", err, domainerr.NotFound)
		_, err = e.svc.CreateTask(e.gina, &taskwirev1.CreateTaskRequest{Title: "x", Board: "ops"})
		wantErr(t, "CreateTask(globex, board ops)", err, domainerr.NotFound, `use one of "main"`)

		list, err := e.svc.ListTasks(e.gina, &taskwirev1.ListTasksRequest{})
		if err != nil || len(list.Items) != 0 {
			t.Errorf("ListTasks(globex) = %v, %v, want no tasks", list, err)
		}
		boards, err := e.svc.ListBoards(e.gina, &taskwirev1.ListBoardsRequest{})
		if err != nil || len(boards.Items) != 1 || boards.Items[0].Slug != "main" {
			t.Errorf("ListBoards(globex) = %v, %v, want only globex's main", boards, err)
		}

		// Numbers are per tenant.
		if got := e.create(t, e.gina, "globex's own").Ref; got != "T-1" {
			t.Errorf("globex's first task = %s, want T-1", got)
		}
		got, err := e.svc.GetTask(e.alice, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true})
		if err != nil || got.Task.Title != "acme secret" || got.Task.Version != 1 || len(got.Comments) != 0 {
			t.Errorf("acme's T-1 after globex's attempts = %v, %v, want it untouched", got, err)
		}
	})
}

func TestCallerMustResolve(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		alice, _ := identity.FromContext(e.alice)
		gina, _ := identity.FromContext(e.gina)
		for _, tc := range []struct {
			name string
			ctx  context.Context
		}{
			{"no caller", context.Background()},
			{"no member", identity.NewContext(context.Background(), identity.Caller{Tenant: "acme"})},
			{"unknown tenant", identity.NewContext(context.Background(), identity.Caller{Tenant: "initech", Member: alice.Member})},
			{"member of another tenant", identity.NewContext(context.Background(), identity.Caller{Tenant: "acme", Member: gina.Member})},
			{"unknown member", identity.NewContext(context.Background(), identity.Caller{Tenant: "acme", Member: 999})},
		} {
			_, err := e.svc.ListBoards(tc.ctx, &taskwirev1.ListBoardsRequest{})
			wantErr(t, "ListBoards("+tc.name+")", err, domainerr.Unauthenticated)
			_, err = e.svc.CreateTask(tc.ctx, &taskwirev1.CreateTaskRequest{Title: "x"})
			wantErr(t, "CreateTask("+tc.name+")", err, domainerr.Unauthenticated)
		}
		if n := e.taskCount(t); n != 0 {
			t.Errorf("tasks after unauthenticated calls = %d, want 0", n)
		}
	})
}

func TestActivityRecordsEveryWrite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "one")
		steps := []error{
			func() error {
				_, err := e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("uno")})
				return err
			}(),
			func() error {
				_, err := e.svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE})
				return err
			}(),
			func() error {
				_, err := e.svc.AddComment(e.claude, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "done"})
				return err
			}(),
			func() error {
				_, err := e.svc.ImportTasks(e.bob, &taskwirev1.ImportTasksRequest{Tasks: drafts(2)})
				return err
			}(),
		}
		for i, err := range steps {
			if err != nil {
				t.Fatalf("step %d = %v", i, err)
			}
		}
		type row struct {
			action, actor, kind string
			ref                 any
		}
		handle := func(ctx context.Context) int { c, _ := identity.FromContext(ctx); return c.Member }
		names := map[int]string{handle(e.alice): "alice", handle(e.bob): "bob", handle(e.claude): "claude"}
		var got []row
		for _, a := range e.activities(t) {
			got = append(got, row{a.Action, names[a.ActorID], string(a.ActorKind), a.Detail["ref"]})
		}
		want := []row{
			{"task.created", "alice", "human", "T-1"},
			{"task.updated", "claude", "assistant", "T-1"},
			{"task.moved", "bob", "human", "T-1"},
			{"comment.added", "claude", "assistant", "T-1"},
			{"task.created", "bob", "human", "T-2"},
			{"task.created", "bob", "human", "T-3"},
			{"tasks.imported", "bob", "human", nil},
		}
		if len(got) != len(want) {
			t.Fatalf("activities = %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("activity[%d] = %v, want %v", i, got[i], want[i])
			}
		}
	})
}

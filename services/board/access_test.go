package board_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestResolvedAccess: with the Access the worker resolved in the context,
// the service acts as that member exactly as when it looks the member up
// itself; an Access of another caller is not taken for this one.
func TestResolvedAccess(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		r, err := tenancy.NewResolver(c)
		if err != nil {
			t.Fatal(err)
		}
		claude, _ := identity.FromContext(e.claude)
		a, err := r.Resolve(e.claude, claude)
		if err != nil {
			t.Fatal(err)
		}
		resolved := identity.WithAccess(e.claude, a)
		created, err := e.svc.CreateTask(resolved, &taskwirev1.CreateTaskRequest{Title: "resolved", Assignees: []string{"me"}})
		if err != nil {
			t.Fatalf("CreateTask(with Access) = %v", err)
		}
		if created.Task.CreatedBy != "claude" || len(created.Task.Assignees) != 1 || created.Task.Assignees[0] != "claude" {
			t.Errorf("CreateTask(with Access) = %v, want a task by and for claude", created.Task)
		}
		withAccess, err := e.svc.AddComment(resolved, &taskwirev1.AddCommentRequest{Ref: created.Task.Ref, Body: "a"})
		if err != nil {
			t.Fatal(err)
		}
		without, err := e.svc.AddComment(e.claude, &taskwirev1.AddCommentRequest{Ref: created.Task.Ref, Body: "a"})
		if err != nil {
			t.Fatal(err)
		}
		ignore := protocmp.IgnoreFields(&taskwirev1.Comment{}, "id", "created_at")
		if diff := cmp.Diff(without.Comment, withAccess.Comment, protocmp.Transform(), ignore); diff != "" {
			t.Errorf("AddComment with Access (-without +with):\n%s", diff)
		}

		// Bob's context carrying claude's Access still acts as bob.
		mixed := identity.WithAccess(e.bob, a)
		got, err := e.svc.CreateTask(mixed, &taskwirev1.CreateTaskRequest{Title: "bob's", Assignees: []string{"me"}})
		if err != nil {
			t.Fatal(err)
		}
		if got.Task.CreatedBy != "bob" || got.Task.Assignees[0] != "bob" {
			t.Errorf("CreateTask(bob with claude's Access) = %v, want a task by and for bob", got.Task)
		}
	})
}

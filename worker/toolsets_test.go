package worker

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

// asLimited returns a context whose calls carry a write token of member 7
// of acme limited to toolsets.
func asLimited(toolsets ...string) context.Context {
	c := identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"write"}, TokenID: "tok-limited", Toolsets: toolsets}
	return identity.AppendToOutgoing(context.Background(), c)
}

// TestToolsets: the worker refuses a tool outside the toolsets of the
// caller's token, whatever the front door let through, and lets through
// the tools inside them and methods that are no tools.
func TestToolsets(t *testing.T) {
	w := startWorker(t, nil)
	ctx := asLimited("tasks", "work")
	if _, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("tasks_get with a tasks,work token = %v, want success", err)
	}
	if _, err := w.client.AddComment(asLimited(), &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "x"}); err != nil {
		t.Errorf("comments_add with an unlimited token = %v, want success", err)
	}

	_, err := w.client.AddComment(ctx, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "x"})
	st := status.Convert(err)
	want := "This token is limited to the toolsets tasks, work, and comments_add is in the comments toolset; ask an admin for a token that includes comments."
	if st.Code() != codes.PermissionDenied || st.Message() != want {
		t.Errorf("comments_add with a tasks,work token = %v %q, want PermissionDenied %q", st.Code(), st.Message(), want)
	}
	reason, md := access.Reason(err)
	if reason != access.ReasonToolsetForbids || md["tool"] != "comments_add" || md["toolset"] != "comments" || md["toolsets"] != "tasks,work" {
		t.Errorf("refusal = %q %v, want %s for comments_add, toolset comments, toolsets tasks,work", reason, md, access.ReasonToolsetForbids)
	}

	// GetBoardContext is no tool (resources read it): the limit does not
	// apply, so the call reaches the (unimplemented) handler.
	_, err = w.client.GetBoardContext(asLimited("work"), &taskwirev1.GetBoardContextRequest{})
	if got := status.Code(err); got != codes.Unimplemented {
		t.Errorf("GetBoardContext with a work token = %v, want it past the toolset check (Unimplemented)", err)
	}
}

// TestScopeRefusalBeforeToolset: a read token limited to comments calling
// comments_add lacks the scope first; the scope is what it must change.
func TestScopeRefusalBeforeToolset(t *testing.T) {
	w := startWorker(t, nil)
	c := identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "tok", Toolsets: []string{"tasks"}}
	_, err := w.client.AddComment(identity.AppendToOutgoing(context.Background(), c), &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "x"})
	if reason, _ := access.Reason(err); reason != access.ReasonInsufficientScope {
		t.Errorf("comments_add with a read token limited to tasks = %v (reason %q), want %s", err, reason, access.ReasonInsufficientScope)
	}
}

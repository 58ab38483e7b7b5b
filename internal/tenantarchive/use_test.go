package tenantarchive_test

import (
	"context"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/board"
)

// useImported works in the imported tenant slug through the board
// service, as its members' tools do: the tasks keep their refs, comments
// and history, search finds them, and new tasks, comments and notes
// continue after the imported numbers.
func useImported(t *testing.T, c *ent.Client, slug string) {
	t.Helper()
	svc, err := board.New(board.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	alice, claude := memberCtx(t, c, slug, "alice"), memberCtx(t, c, slug, "claude")
	got, err := svc.GetTask(alice, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true, IncludeHistory: true, IncludeLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if tk := got.GetTask(); tk.GetTitle() != "Ship the importer" || len(tk.GetAssignees()) != 2 {
		t.Errorf("T-1 = %v, want Ship the importer, assigned to bob and claude", tk)
	}
	if cs := got.GetComments(); len(cs) != 2 || cs[0].GetAuthor() != "bob" || cs[0].GetVersion() != 2 || cs[0].GetEditedAt() == nil || cs[1].GetAuthor() != "claude" {
		t.Errorf("T-1's comments = %v, want bob's (edited, version 2), then claude's", cs)
	}
	if h := got.GetHistory(); len(h) < 4 {
		t.Errorf("T-1's history has %d entries, want its creation, move, approval and claim: %v", len(h), h)
	}
	if len(got.GetLinks()) == 0 {
		t.Errorf("T-1 lost its link to T-2")
	}
	found, err := svc.SearchTasks(alice, &taskwirev1.SearchTasksRequest{Query: "importer"})
	if err != nil || len(found.GetItems()) != 1 {
		t.Errorf("SearchTasks(importer) = %v, %v; want T-1", found, err)
	}
	created, err := svc.CreateTask(alice, &taskwirev1.CreateTaskRequest{Title: "The first task after the move"})
	if err != nil || created.GetTask().GetRef() != "T-5" {
		t.Errorf("CreateTask after the import = %v, %v; want T-5", created, err)
	}
	comment, err := svc.AddComment(alice, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "Moved."})
	if err != nil || comment.GetComment().GetId() != 5 {
		t.Errorf("AddComment after the import = %v, %v; want comment 5", comment, err)
	}
	// T-1's lease ended with the export: it is claimed again.
	next, err := svc.NextWork(claude, &taskwirev1.NextWorkRequest{Board: "main"})
	if err != nil || next.GetLeaseToken() == "" {
		t.Errorf("NextWork after the import = %v, %v; want a lease", next, err)
	}
}

// memberCtx is the context of a call by the member handle of tenant slug.
func memberCtx(t *testing.T, c *ent.Client, slug, handle string) context.Context {
	t.Helper()
	tn, ctx, err := tenancy.Tenant(context.Background(), c, slug)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tenancy.MemberByHandle(ctx, c, tn, handle)
	if err != nil {
		t.Fatal(err)
	}
	return as(slug, m)
}

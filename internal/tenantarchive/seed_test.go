package tenantarchive_test

import (
	"context"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/board"
)

// seed fills the tenant acme through the services, as people and
// assistants would: two boards (one with WIP limits and kinds), members
// (an assistant with its sponsor, a removed one), tasks with sizes,
// labels, assignees and links, a deleted task, comments (one edited),
// a context note, work approved, claimed and completed, and audit
// events. A second tenant, globex, holds a task an export of acme must
// leave out.
func seed(t *testing.T, c *ent.Client) {
	t.Helper()
	ctx := context.Background()
	boot, err := tenancy.Bootstrap(ctx, c, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	bob := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "bob", Name: "Bob B."})
	claude := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "claude", Kind: member.KindAssistant, SponsorHandle: "alice"})
	gone := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "gone"})
	svc, err := board.New(board.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	alice, bobc, claudec, gonec := as("acme", boot.Owner), as("acme", bob), as("acme", claude), as("acme", gone)
	s := seeder{t: t, svc: svc}

	s.do(svc.CreateBoard(alice, &taskwirev1.CreateBoardRequest{Slug: "ops", Name: "Operations", Rules: ptr("Tag every change."),
		WipLimits: []*taskwirev1.WipLimit{{Lane: taskwirev1.Lane_LANE_DOING, Limit: 3}}, Kinds: []taskwirev1.TaskKind{taskwirev1.TaskKind_TASK_KIND_BUG}}))
	s.do(svc.CreateTask(alice, &taskwirev1.CreateTaskRequest{Title: "Ship the importer", Note: "All <kinds> & more", Size: taskwirev1.TaskSize_TASK_SIZE_M,
		Labels: []string{"export", "backend"}, Assignees: []string{"bob", "claude"}, Project: "portability"}))
	s.do(svc.CreateTask(bobc, &taskwirev1.CreateTaskRequest{Title: "Write the docs", Kind: taskwirev1.TaskKind_TASK_KIND_CHORE,
		Links: []*taskwirev1.Link{{Kind: taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY, Ref: "T-1"}}}))
	s.do(svc.CreateTask(claudec, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Crash on empty archive", Kind: taskwirev1.TaskKind_TASK_KIND_BUG}))
	s.do(svc.CreateTask(gonec, &taskwirev1.CreateTaskRequest{Title: "A stray idea"}))
	s.do(svc.UpdateTask(alice, &taskwirev1.UpdateTaskRequest{Ref: "T-2", Title: ptr("Write the operator docs"), AddLabels: []string{"docs"},
		AddLinks: []*taskwirev1.Link{{Kind: taskwirev1.LinkKind_LINK_KIND_RELATES_TO, Ref: "T-3"}}}))
	s.do(svc.MoveTask(bobc, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DOING}))
	s.do(svc.AssignTask(alice, &taskwirev1.AssignTaskRequest{Ref: "T-2", Add: []string{"alice"}}))
	s.do(svc.FlagTask(claudec, &taskwirev1.FlagTaskRequest{Ref: "T-3", Flagged: true, Reason: "needs a person"}))

	s.do(svc.AddComment(bobc, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "Started on the reader."}))
	s.do(svc.AddComment(claudec, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "I can take the writer."}))
	s.do(svc.EditComment(bobc, &taskwirev1.EditCommentRequest{Id: 1, Body: "Started on the reader; half done."}))
	s.do(svc.AddComment(alice, &taskwirev1.AddCommentRequest{Ref: "T-3", Body: "Reproduced."}))
	s.do(svc.AddContextNote(alice, &taskwirev1.AddContextNoteRequest{Body: "Archives are zip files with a manifest."}))
	s.do(svc.AddContextNote(bobc, &taskwirev1.AddContextNoteRequest{Board: "ops", Body: "On call: bob."}))

	// Work: T-2 waits in the queue, T-1 is claimed, T-3 completed.
	for _, r := range []string{"T-1", "T-2", "T-3"} {
		s.do(svc.ApproveWork(alice, &taskwirev1.ApproveWorkRequest{Ref: r, Plan: "Do " + r + " as described.", LeaseMinutes: 30, MaxClaims: 2}))
	}
	first := s.claim(claudec, "main")
	if first.GetTask().GetRef() != "T-1" {
		t.Fatalf("the first claim got %s, want T-1", first.GetTask().GetRef())
	}
	done := s.claim(claudec, "ops")
	s.do(svc.CompleteWork(claudec, &taskwirev1.CompleteWorkRequest{Ref: done.GetTask().GetRef(), LeaseToken: done.GetLeaseToken(),
		TestStatus: taskwirev1.TestStatus_TEST_STATUS_PASSED, Notes: "Fixed."}))

	// T-4 is deleted (deleting takes a person's confirmation in the
	// console, out of this test's reach), and gone leaves the tenant.
	scoped := tenantscope.NewContext(ctx, boot.Tenant.ID)
	now := time.Now().UTC().Truncate(time.Microsecond)
	if err := c.Task.Update().Where(task.Number(4)).SetDeletedAt(now).Exec(scoped); err != nil {
		t.Fatal(err)
	}
	if err := c.Member.UpdateOne(gone).SetRemovedAt(now).Exec(scoped); err != nil {
		t.Fatal(err)
	}
	recordAudit(t, c, "acme", boot.Owner, claude)
	other(t, c)
}

// seeder makes the calls of seed, failing the test on any error.
type seeder struct {
	t   *testing.T
	svc *board.Service
}

func (s seeder) do(_ any, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}

func (s seeder) claim(ctx context.Context, boardSlug string) *taskwirev1.NextWorkResponse {
	s.t.Helper()
	resp, err := s.svc.NextWork(ctx, &taskwirev1.NextWorkRequest{Board: boardSlug})
	if err != nil || resp.GetLeaseToken() == "" {
		s.t.Fatalf("NextWork(%s) = %v, %v; want a lease", boardSlug, resp, err)
	}
	return resp
}

// recordAudit writes audit events as a worker does: a call of the owner,
// one of the assistant, a refusal, and an operator's.
func recordAudit(t *testing.T, c *ent.Client, tenant string, owner, assistant *ent.Member) {
	t.Helper()
	st, err := audit.New(audit.Config{Client: c, CursorKey: make([]byte, audit.MinCursorKey)})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Millisecond)
	events := []audit.Event{
		{OccurredAt: at, Tenant: tenant, MemberID: owner.ID, TokenID: "jti-alice", Method: "/taskwire.v1.BoardService/CreateTask", Tool: "tasks_create",
			Targets: []string{"board=main"}, Outcome: "ok", Duration: 12 * time.Millisecond},
		{OccurredAt: at.Add(time.Millisecond), Tenant: tenant, MemberID: assistant.ID, TokenID: "jti-claude", SessionLabel: "claude-code",
			Method: "/taskwire.v1.BoardService/MoveTask", Tool: "tasks_move", Targets: []string{"ref=T-1"}, Outcome: "ok", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"},
		{OccurredAt: at.Add(2 * time.Millisecond), Tenant: tenant, MemberID: assistant.ID, Method: "/taskwire.v1.BoardService/DeleteTask", Tool: "tasks_delete",
			Outcome: "refused", Error: "assistants may not delete tasks"},
		{OccurredAt: at.Add(3 * time.Millisecond), Tenant: tenant, Kind: audit.KindOperator, Member: "operator", Method: "/taskwire.admin.v1.AdminService/ListMembers", Outcome: "ok"},
	}
	for _, e := range events {
		if err := st.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// other makes the tenant globex, with a member, a board and a task.
func other(t *testing.T, c *ent.Client) {
	t.Helper()
	ctx := context.Background()
	g := c.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(ctx)
	gina := addMember(t, c, "globex", tenancy.MemberSpec{Handle: "gina", Role: member.RoleOwner})
	c.Board.Create().SetTenantID(g.ID).SetSlug("main").SetName("Main").SetIsDefault(true).SaveX(tenantscope.NewContext(ctx, g.ID))
	svc, err := board.New(board.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTask(as("globex", gina), &taskwirev1.CreateTaskRequest{Title: "Globex's own task"}); err != nil {
		t.Fatal(err)
	}
}

func addMember(t *testing.T, c *ent.Client, tenant string, spec tenancy.MemberSpec) *ent.Member {
	t.Helper()
	m, err := tenancy.AddMember(context.Background(), c, tenant, spec)
	if err != nil {
		t.Fatalf("AddMember(%s, %s) = %v", tenant, spec.Handle, err)
	}
	return m
}

// as is the context of a call by m.
func as(tenant string, m *ent.Member) context.Context {
	return identity.NewContext(context.Background(), identity.Caller{
		Tenant: tenant, Member: m.ID, Scopes: authz.AllScopes, TokenID: "test-" + m.Handle,
	})
}

func ptr[T any](v T) *T { return &v }

package board_test

import (
	"context"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/board"
)

// env is two tenants on one database: acme with alice (owner), bob (member)
// and claude (an assistant sponsored by alice) and the boards main (default)
// and ops; globex with gina and its own board main.
type env struct {
	client *ent.Client
	svc    *board.Service
	acme   *ent.Tenant

	alice, bob, claude, gina context.Context // each member's calls
}

func newEnv(t testing.TB, c *ent.Client) *env {
	t.Helper()
	ctx := context.Background()
	boot, err := tenancy.Bootstrap(ctx, c, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	bob := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "bob"})
	claude := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "claude", Kind: member.KindAssistant, SponsorHandle: "alice"})
	scoped := tenantscope.NewContext(ctx, boot.Tenant.ID)
	c.Board.Create().SetTenantID(boot.Tenant.ID).SetSlug("ops").SetName("Operations").SaveX(scoped)

	globex := c.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(ctx)
	gina := addMember(t, c, "globex", tenancy.MemberSpec{Handle: "gina", Role: member.RoleOwner})
	c.Board.Create().SetTenantID(globex.ID).SetSlug("main").SetName("Main").SetIsDefault(true).
		SaveX(tenantscope.NewContext(ctx, globex.ID))

	svc, err := board.New(board.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	return &env{
		client: c, svc: svc, acme: boot.Tenant,
		alice:  callerContext("acme", boot.Owner),
		bob:    callerContext("acme", bob),
		claude: callerContext("acme", claude),
		gina:   callerContext("globex", gina),
	}
}

func addMember(t testing.TB, c *ent.Client, tenant string, spec tenancy.MemberSpec) *ent.Member {
	t.Helper()
	m, err := tenancy.AddMember(context.Background(), c, tenant, spec)
	if err != nil {
		t.Fatalf("AddMember(%s, %s) = %v", tenant, spec.Handle, err)
	}
	return m
}

func callerContext(tenant string, m *ent.Member) context.Context {
	return identity.NewContext(context.Background(), identity.Caller{
		Tenant: tenant, Member: m.ID, Scopes: authz.AllScopes, TokenID: "test-" + m.Handle,
	})
}

// create makes a task with title on the default board, or fails the test.
func (e *env) create(t *testing.T, ctx context.Context, title string) *taskwirev1.Task {
	t.Helper()
	resp, err := e.svc.CreateTask(ctx, &taskwirev1.CreateTaskRequest{Title: title})
	if err != nil {
		t.Fatalf("CreateTask(%q) = %v", title, err)
	}
	return resp.Task
}

// activities returns acme's activity log, oldest first.
func (e *env) activities(t *testing.T) []*ent.Activity {
	t.Helper()
	ctx := tenantscope.NewContext(context.Background(), e.acme.ID)
	as, err := e.client.Activity.Query().Where(activity.TenantID(e.acme.ID)).Order(ent.Asc(activity.FieldID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// taskCount returns how many tasks acme has.
func (e *env) taskCount(t *testing.T) int {
	t.Helper()
	resp, err := e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(resp.Items)
}

// wantErr fails the test unless err has kind and a message containing each
// of parts.
func wantErr(t *testing.T, call string, err error, kind domainerr.Kind, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s = nil error, want %v", call, kind)
		return
	}
	if got := domainerr.KindOf(err); got != kind {
		t.Errorf("%s = %v (%v), want %v", call, err, got, kind)
		return
	}
	for _, p := range parts {
		if msg := domainerr.Message(err); !strings.Contains(msg, p) {
			t.Errorf("%s = %q, want a message containing %q", call, msg, p)
		}
	}
}

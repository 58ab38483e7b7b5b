package decisions_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/decisions"
)

// env is tenant acme with alice (owner), bob (member), vic (viewer) and
// the assistants claude (sponsored by alice) and robo (sponsored by bob);
// tenant globex with gina (owner).
type env struct {
	client *ent.Client
	svc    *decisions.Service
	pub    *recorder
	clock  *clock
	acme   *ent.Tenant

	alice, bob, vic, claude, robo, gina context.Context
	claudeID, aliceID                   int
}

func newEnv(t *testing.T, c *ent.Client) *env {
	t.Helper()
	ctx := context.Background()
	boot, err := tenancy.Bootstrap(ctx, c, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	bob := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "bob"})
	vic := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "vic", Role: member.RoleViewer})
	claude := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "claude", Kind: member.KindAssistant, SponsorHandle: "alice"})
	robo := addMember(t, c, "acme", tenancy.MemberSpec{Handle: "robo", Kind: member.KindAssistant, SponsorHandle: "bob"})
	c.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(ctx)
	gina := addMember(t, c, "globex", tenancy.MemberSpec{Handle: "gina", Role: member.RoleOwner})

	e := &env{client: c, pub: &recorder{}, clock: &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, acme: boot.Tenant}
	e.svc, err = decisions.New(decisions.Config{Client: c, Events: e.pub, Logger: storetest.Logger(), Now: e.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	e.alice, e.bob, e.vic = callerContext("acme", boot.Owner), callerContext("acme", bob), callerContext("acme", vic)
	e.claude, e.robo, e.gina = callerContext("acme", claude), callerContext("acme", robo), callerContext("globex", gina)
	e.claudeID, e.aliceID = claude.ID, boot.Owner.ID
	return e
}

func addMember(t *testing.T, c *ent.Client, tenant string, spec tenancy.MemberSpec) *ent.Member {
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

// ask has ctx's member ask for a decision on deleting ref.
func (e *env) ask(t *testing.T, ctx context.Context, ref string) *taskwirev1.Decision {
	t.Helper()
	resp, err := e.svc.RequestDecision(ctx, deleteRequest(ref))
	if err != nil {
		t.Fatalf("RequestDecision(%s) = %v", ref, err)
	}
	return resp.Decision
}

func deleteRequest(ref string) *taskwirev1.RequestDecisionRequest {
	return &taskwirev1.RequestDecisionRequest{
		Tool: "tasks_delete", Question: "Delete task " + ref + "?",
		ArgumentsJson: `{"ref":"` + ref + `"}`, Digest: "digest-" + ref,
	}
}

// decide has ctx's member decide id, or fails the test.
func (e *env) decide(t *testing.T, ctx context.Context, id string, approve bool, reason string) *taskwirev1.Decision {
	t.Helper()
	resp, err := e.svc.Decide(ctx, &taskwirev1.DecideRequest{Id: id, Approve: approve, Reason: reason})
	if err != nil {
		t.Fatalf("Decide(%s, %v) = %v", id, approve, err)
	}
	return resp.Decision
}

// recorder is a Publisher that keeps what it was told.
type recorder struct {
	mu     sync.Mutex
	events []string // "tenant kind ref"
}

func (r *recorder) Publish(tenant string, ev events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, tenant+" "+ev.Kind+" "+ev.Ref)
	return nil
}

func (r *recorder) took() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
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
			t.Errorf("%s = %q, want it to mention %q", call, msg, p)
		}
	}
}

package audit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/services/audit"
)

// env is one database with two tenants, acme and globex, each with an
// admin alice, a viewer vic and an assistant bot sponsored by alice, and
// a Store over it.
type env struct {
	client  *ent.Client
	store   *audit.Store
	members map[string]int // "acme/alice" → member id
	tenants map[string]int // slug → tenant id
	base    time.Time      // the time of the first event tests record
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

func newEnv(t *testing.T, client *ent.Client) *env {
	t.Helper()
	e := &env{client: client, members: map[string]int{}, tenants: map[string]int{},
		base: time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)}
	for _, slug := range []string{"acme", "globex"} {
		e.addTenant(t, slug)
	}
	e.store = newStore(t, client, testKey)
	return e
}

func newStore(t *testing.T, client *ent.Client, key []byte) *audit.Store {
	t.Helper()
	s, err := audit.New(audit.Config{Client: client, CursorKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) addTenant(t *testing.T, slug string) {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	tn, err := e.client.Tenant.Create().SetSlug(slug).SetName(slug).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctx = tenantscope.NewContext(context.Background(), tn.ID)
	add := func(handle string, kind member.Kind, role member.Role, sponsor *int) int {
		m, err := e.client.Member.Create().SetTenantID(tn.ID).SetHandle(handle).SetDisplayName(handle).
			SetKind(kind).SetRole(role).SetNillableSponsorID(sponsor).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		e.members[slug+"/"+handle] = m.ID
		return m.ID
	}
	alice := add("alice", member.KindHuman, member.RoleAdmin, nil)
	add("vic", member.KindHuman, member.RoleViewer, nil)
	add("bot", member.KindAssistant, member.RoleMember, &alice)
	e.tenants[slug] = tn.ID
}

// call is an event as the worker hands it over for a call by who, e.g.
// "acme/bot", i seconds after base, with the member unresolved (as for a
// call refused before its access was read).
func (e *env) call(who string, i int, tool, outcome string) audit.Event {
	tenant, handle := split(who)
	ev := audit.Event{
		OccurredAt: e.base.Add(time.Duration(i) * time.Second), Tenant: tenant, MemberID: e.members[who],
		TokenID: "jti-" + handle, Method: "/taskwire.v1.BoardService/" + tool, Tool: tool,
		Targets: []string{"ref=T-" + fmt.Sprint(i)}, Outcome: outcome, Duration: 1500 * time.Microsecond,
	}
	if outcome != audit.OutcomeOK {
		ev.Error = "no " + tool
	}
	return ev
}

func (e *env) record(t *testing.T, evs ...audit.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := e.store.Record(context.Background(), ev); err != nil {
			t.Fatalf("Record(%s %s) = %v", ev.Tenant, ev.Method, err)
		}
	}
}

// list lists tenant's log, failing the test on an error.
func (e *env) list(t *testing.T, tenant string, f audit.Filter, cursor string, limit int) ([]audit.Event, string) {
	t.Helper()
	evs, next, err := e.store.List(context.Background(), tenant, f, cursor, limit)
	if err != nil {
		t.Fatalf("List(%s, %+v, %q, %d) = %v", tenant, f, cursor, limit, err)
	}
	return evs, next
}

func split(who string) (tenant, handle string) {
	for i := range who {
		if who[i] == '/' {
			return who[:i], who[i+1:]
		}
	}
	return who, ""
}

func kindOf(err error) string {
	if err == nil {
		return "nil"
	}
	return domainerr.KindOf(err).String()
}

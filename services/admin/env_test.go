package admin_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/tokens"
)

const (
	testIssuer   = "https://taskwire.test"
	testAudience = "https://taskwire.test/api/mcp"
)

// env is one database with two tenants and the admin service over it:
// acme has the owner alice, the admin adam, the member mia, the viewer
// vic and the assistant bot (sponsored by alice); globex has the admin
// gus.
type env struct {
	client   *ent.Client
	svc      *admin.Service
	store    *tokens.Store
	issuer   *authn.Issuer
	verifier *authn.Verifier
	// adminVerifier verifies admin tokens, as the admin API's edge does.
	adminVerifier *authn.Verifier
	events        *recorder
	revs          *revRecorder
	members       map[string]int // "acme/alice" → member id
}

func newEnv(t *testing.T, client *ent.Client) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{client: client, events: &recorder{}, revs: &revRecorder{}, members: map[string]int{}}
	boot, err := tenancy.Bootstrap(ctx, client, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice", OwnerName: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	e.members["acme/alice"] = boot.Owner.ID
	for _, m := range []struct {
		tenant string
		spec   tenancy.MemberSpec
	}{
		{"acme", tenancy.MemberSpec{Handle: "adam", Role: member.RoleAdmin}},
		{"acme", tenancy.MemberSpec{Handle: "mia", Role: member.RoleMember}},
		{"acme", tenancy.MemberSpec{Handle: "vic", Role: member.RoleViewer}},
		{"acme", tenancy.MemberSpec{Handle: "bot", Kind: member.KindAssistant, SponsorHandle: "alice"}},
		{"globex", tenancy.MemberSpec{Handle: "gus", Role: member.RoleAdmin}},
	} {
		if m.tenant == "globex" && e.members["globex/gus"] == 0 {
			if _, err := client.Tenant.Create().SetSlug("globex").SetName("Globex").Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
		added, err := tenancy.AddMember(ctx, client, m.tenant, m.spec)
		if err != nil {
			t.Fatal(err)
		}
		e.members[m.tenant+"/"+m.spec.Handle] = added.ID
	}
	if e.store, err = tokens.New(tokens.Config{Client: client, Events: e.revs, Logger: storetest.Logger()}); err != nil {
		t.Fatal(err)
	}
	key, _, err := authn.LoadOrCreateKey(filepath.Join(t.TempDir(), "signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	if e.issuer, err = authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: testIssuer, Audience: testAudience}); err != nil {
		t.Fatal(err)
	}
	if e.verifier, err = authn.NewVerifier(authn.VerifierConfig{
		Keys: map[string]ed25519.PublicKey{key.ID: key.Public()}, Issuer: testIssuer, Audience: testAudience,
	}); err != nil {
		t.Fatal(err)
	}
	if e.adminVerifier, err = authn.NewVerifier(authn.VerifierConfig{
		Keys: map[string]ed25519.PublicKey{key.ID: key.Public()}, Issuer: testIssuer, Audience: authn.AdminAudience(testIssuer),
	}); err != nil {
		t.Fatal(err)
	}
	if e.svc, err = admin.New(admin.Config{Client: client, Tokens: e.store, Issuer: e.issuer, Events: e.events, Logger: storetest.Logger()}); err != nil {
		t.Fatal(err)
	}
	return e
}

// as returns the context of a call by who ("acme/adam") with an admin
// token, or with an MCP token of scopes when some are named, or of an
// operator for who == "operator", as the worker's chain leaves it.
func (e *env) as(t *testing.T, who string, scopes ...string) context.Context {
	t.Helper()
	if who == "operator" {
		return identity.NewOperatorContext(context.Background())
	}
	id, ok := e.members[who]
	if !ok {
		t.Fatalf("no member %s in the test env", who)
	}
	tenant, _, _ := strings.Cut(who, "/")
	c := identity.Caller{Tenant: tenant, Member: id, TokenID: "t-" + who, Kind: identity.KindAdmin}
	if len(scopes) > 0 {
		c.Scopes, c.Kind = scopes, identity.KindMCP
	}
	return identity.NewContext(context.Background(), c)
}

// mint records a live token for who ("acme/bot") and returns its id.
func (e *env) mint(t *testing.T, who string) string {
	t.Helper()
	tenant, _, _ := strings.Cut(who, "/")
	_, info, err := e.store.Create(context.Background(), e.issuer, tokens.CreateRequest{
		Tenant: tenant, Member: e.members[who], Scopes: []string{"read"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func (e *env) isRevoked(t *testing.T, jti string) bool {
	t.Helper()
	rec, err := e.store.Lookup(context.Background(), jti)
	if err != nil {
		t.Fatal(err)
	}
	return !rec.Known() || rec.Revoked
}

// recorder keeps the tenant events published, as "acme tools 7".
type recorder struct {
	mu   sync.Mutex
	sent []string
}

func (r *recorder) Publish(tenant string, ev events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, fmt.Sprintf("%s %s %d", tenant, ev.Kind, ev.Member))
	return nil
}

// take returns what was published since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sent
	r.sent = nil
	return s
}

// revRecorder keeps the revocations broadcast.
type revRecorder struct {
	mu   sync.Mutex
	sent []events.Revocation
}

func (r *revRecorder) PublishRevocation(ev events.Revocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, ev)
	return nil
}

func roleOf(r string) taskwirev1.MemberRole {
	return taskwirev1.MemberRole(taskwirev1.MemberRole_value["MEMBER_ROLE_"+strings.ToUpper(r)])
}

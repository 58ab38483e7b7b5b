package tokens_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

const (
	testIssuer   = "https://taskwire.test"
	testAudience = "https://taskwire.test/api/mcp"
)

// env is one database with two tenants, acme and globex, each with an
// admin and an assistant, and a Store over it.
type env struct {
	client   *ent.Client
	store    *tokens.Store
	issuer   *authn.Issuer
	kid      string // the issuer's key
	verifier *authn.Verifier
	clock    *clock
	events   *recorder
	members  map[string]int // "acme/alice" → member id
	tenants  map[string]int // slug → tenant id
}

func newEnv(t *testing.T, client *ent.Client) *env {
	t.Helper()
	e := &env{client: client, clock: newClock(), events: &recorder{}, members: map[string]int{}, tenants: map[string]int{}}
	for _, tn := range []string{"acme", "globex"} {
		e.addTenant(t, tn)
	}
	e.store = e.newStore(t, e.events)
	key, _, err := authn.LoadOrCreateKey(filepath.Join(t.TempDir(), "signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	e.kid = key.ID
	if e.issuer, err = authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: testIssuer, Audience: testAudience}); err != nil {
		t.Fatal(err)
	}
	e.verifier, err = authn.NewVerifier(authn.VerifierConfig{
		Keys: map[string]ed25519.PublicKey{key.ID: key.Public()}, Issuer: testIssuer, Audience: testAudience,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// newStore returns another Store over the same database and clock, as
// another worker replica would have.
func (e *env) newStore(t *testing.T, pub tokens.Publisher) *tokens.Store {
	t.Helper()
	cfg := tokens.Config{Client: e.client, Now: e.clock.Now, Logger: storetest.Logger()}
	if pub != nil {
		cfg.Events = pub
	}
	s, err := tokens.New(cfg)
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
	admin, err := e.client.Member.Create().SetTenantID(tn.ID).SetHandle("alice").SetDisplayName("Alice").
		SetKind(member.KindHuman).SetRole(member.RoleAdmin).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := e.client.Member.Create().SetTenantID(tn.ID).SetHandle("bot").SetDisplayName("Bot").
		SetKind(member.KindAssistant).SetRole(member.RoleMember).SetSponsorID(admin.ID).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.members[slug+"/alice"], e.members[slug+"/bot"] = admin.ID, bot.ID
	e.tenants[slug] = tn.ID
}

// create records a token for tenant/handle, e.g. "acme/bot".
func (e *env) create(t *testing.T, who string, scopes ...string) (string, tokens.Info) {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"read"}
	}
	tenant, _, _ := strings.Cut(who, "/")
	raw, info, err := e.store.Create(context.Background(), e.issuer, tokens.CreateRequest{
		Tenant: tenant, Member: e.members[who], Scopes: scopes, Label: "for " + who,
	})
	if err != nil {
		t.Fatalf("Create(%s) = %v", who, err)
	}
	return raw, info
}

// verify returns the caller raw names, failing the test if it does not
// verify.
func (e *env) verify(t *testing.T, raw string) identity.Caller {
	t.Helper()
	c, err := e.verifier.Verify(context.Background(), raw)
	if err != nil {
		t.Fatalf("Verify = %v, want a valid token", err)
	}
	return c
}

func (e *env) isRevoked(t *testing.T, s *tokens.Store, jti string) bool {
	t.Helper()
	rec, err := s.Lookup(context.Background(), jti)
	if err != nil {
		t.Fatalf("Lookup(%q) = %v", jti, err)
	}
	return !rec.Known() || rec.Revoked
}

// clock is a settable clock, starting now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// recorder is a Publisher keeping what it was asked to publish, or
// failing when fail is set.
type recorder struct {
	mu   sync.Mutex
	sent []events.Revocation
	fail bool
}

func (r *recorder) PublishRevocation(ev events.Revocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return errors.New("nats: connection closed")
	}
	r.sent = append(r.sent, ev)
	return nil
}

// take returns what was published since the last take.
func (r *recorder) take() []events.Revocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

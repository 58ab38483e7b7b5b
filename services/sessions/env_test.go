package sessions_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/sessions"
)

const (
	alicePassword = "correct horse battery staple"
	aliceEmail    = "alice@example.com"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	start time.Time
}

func (c *clock) t0() time.Time { return c.start }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a database with two tenants, acme (owner alice, member mia) and
// globex (member alice, as "al"), alice's account (aliceEmail,
// alicePassword) naming both her members, and the service over it.
type env struct {
	client  *ent.Client
	svc     *sessions.Service
	audit   *audit.Store
	clock   *clock
	alice   int            // alice's account
	members map[string]int // "acme/alice" → member id
	tenants map[string]int // slug → id
}

func newEnv(t *testing.T, client *ent.Client) *env {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := &env{client: client, clock: &clock{t: start, start: start},
		members: map[string]int{}, tenants: map[string]int{}}
	if _, err := tenancy.Bootstrap(ctx, client, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice", OwnerName: "Alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Tenant.Create().SetSlug("globex").SetName("Globex").Save(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ tenant, handle string }{{"acme", "mia"}, {"globex", "al"}} {
		if _, err := tenancy.AddMember(ctx, client, m.tenant, tenancy.MemberSpec{Handle: m.handle}); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"acme/alice", "acme/mia", "globex/al"} {
		tenantSlug, handle, _ := strings.Cut(key, "/")
		m, err := tenancy.FindMember(ctx, client, tenantSlug, handle)
		if err != nil {
			t.Fatal(err)
		}
		e.members[key], e.tenants[tenantSlug] = m.ID, m.TenantID
	}
	e.alice = e.account(t, aliceEmail, alicePassword, "acme/alice", "globex/al")
	var err error
	if e.audit, err = audit.New(audit.Config{Client: client, CursorKey: []byte("0123456789abcdef0123456789abcdef")}); err != nil {
		t.Fatal(err)
	}
	if e.svc, err = sessions.New(sessions.Config{Client: client, Audit: e.audit, Logger: storetest.Logger(), Now: e.clock.Now}); err != nil {
		t.Fatal(err)
	}
	return e
}

// account creates an account with email and password ("" for none) and
// makes it the account of the members named.
func (e *env) account(t *testing.T, email, password string, members ...string) int {
	t.Helper()
	ctx := context.Background()
	create := e.client.Account.Create()
	if email != "" {
		create.SetEmail(email)
	}
	if password != "" {
		hash, err := sessions.HashPassword(password)
		if err != nil {
			t.Fatal(err)
		}
		create.SetPasswordHash(hash)
	}
	acc, err := create.Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range members {
		e.link(t, key, acc.ID)
	}
	return acc.ID
}

// link makes the member named by key ("acme/mia") the account's.
func (e *env) link(t *testing.T, key string, acc int) {
	t.Helper()
	tenantSlug, _, _ := strings.Cut(key, "/")
	ctx := tenantscope.NewContext(context.Background(), e.tenants[tenantSlug])
	if err := e.client.Member.UpdateOneID(e.members[key]).SetAccountID(acc).Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// signIn signs in with email and password, failing the test on an error.
func (e *env) signIn(t *testing.T, email, password string) *taskwirev1.SignInResponse {
	t.Helper()
	resp, err := e.svc.SignIn(context.Background(), passwordReq(email, password))
	if err != nil {
		t.Fatalf("SignIn(%s) = %v, want a session", email, err)
	}
	return resp
}

func passwordReq(email, password string) *taskwirev1.SignInRequest {
	return &taskwirev1.SignInRequest{
		Method:    &taskwirev1.SignInRequest_Password{Password: &taskwirev1.PasswordSignIn{Email: email, Password: password}},
		UserAgent: "test browser", ClientAddr: "192.0.2.1",
	}
}

func linkReq(secret string) *taskwirev1.SignInRequest {
	return &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Link{Link: secret}}
}

// newLink makes a link for acc, living ttl; invite names the member it
// invites ("" for a plain sign-in link).
func (e *env) newLink(t *testing.T, acc int, ttl time.Duration, invite string) string {
	t.Helper()
	l := sessions.Link{Account: acc, Purpose: signinlink.PurposeSignIn, Expires: e.clock.Now().Add(ttl)}
	if invite != "" {
		tenantSlug, _, _ := strings.Cut(invite, "/")
		l.Purpose, l.Tenant, l.Member = signinlink.PurposeInvitation, e.tenants[tenantSlug], e.members[invite]
	}
	var secret string
	err := store.WithTx(context.Background(), e.client, func(tx *ent.Tx) error {
		var err error
		secret, err = sessions.CreateLink(context.Background(), tx, l)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// memberAccount is the account of the member key names, 0 for none.
func (e *env) memberAccount(t *testing.T, key string) int {
	t.Helper()
	tenantSlug, _, _ := strings.Cut(key, "/")
	ctx := tenantscope.NewContext(context.Background(), e.tenants[tenantSlug])
	m, err := e.client.Member.Query().Where(member.ID(e.members[key])).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.AccountID == nil {
		return 0
	}
	return *m.AccountID
}

// wantUnauthenticated fails the test unless err is Unauthenticated with
// a message holding want.
func wantUnauthenticated(t *testing.T, what string, err error, want string) {
	t.Helper()
	if domainerr.KindOf(err) != domainerr.Unauthenticated || !strings.Contains(domainerr.Message(err), want) {
		t.Errorf("%s = %v, want Unauthenticated saying %q", what, err, want)
	}
}

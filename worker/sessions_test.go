package worker

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/sessions"
)

// sessionClock is a sessions test's time, moved by hand.
type sessionClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *sessionClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *sessionClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// sessionEnv is acme with alice (owner) and mia, each with an account
// that signs in with a password, and the session service over them:
// sessions live 6 hours, 4 hours idle.
type sessionEnv struct {
	svc     *sessions.Service
	clock   *sessionClock
	members map[string]int // handle → member id
}

func newSessionEnv(t *testing.T, client *ent.Client) *sessionEnv {
	t.Helper()
	ctx := context.Background()
	boot, err := tenancy.Bootstrap(ctx, client, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice", OwnerName: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	mia, err := tenancy.AddMember(ctx, client, "acme", tenancy.MemberSpec{Handle: "mia"})
	if err != nil {
		t.Fatal(err)
	}
	e := &sessionEnv{clock: &sessionClock{t: time.Now().UTC()}, members: map[string]int{"alice": boot.Owner.ID, "mia": mia.ID}}
	scoped := tenantscope.NewContext(ctx, boot.Tenant.ID)
	for handle, id := range e.members {
		hash, err := sessions.HashPassword(handle + " has a long password")
		if err != nil {
			t.Fatal(err)
		}
		acc, err := client.Account.Create().SetEmail(handle + "@example.com").SetPasswordHash(hash).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := client.Member.UpdateOneID(id).SetAccountID(acc.ID).Exec(scoped); err != nil {
			t.Fatal(err)
		}
	}
	auditLog, err := audit.New(audit.Config{Client: client, CursorKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	e.svc, err = sessions.New(sessions.Config{Client: client, Audit: auditLog, Logger: storetest.Logger(),
		Lifetime: 6 * time.Hour, IdleTimeout: 4 * time.Hour, Now: e.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// signIn signs handle in and returns the session's cookie and id.
func (e *sessionEnv) signIn(t *testing.T, handle string) (cookie, sid string) {
	t.Helper()
	resp, err := e.svc.SignIn(context.Background(), &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Password{
		Password: &taskwirev1.PasswordSignIn{Email: handle + "@example.com", Password: handle + " has a long password"}}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetCookie(), resp.GetSession().GetId()
}

// console is the caller a front door names for the session sid acting
// as member handle.
func (e *sessionEnv) console(sid, handle string) identity.Caller {
	return identity.Caller{Tenant: "acme", Member: e.members[handle], Scopes: []string{"read", "comment", "write"},
		TokenID: sid, Kind: identity.KindSession}
}

// TestSessionCallers: a console caller is checked against its session,
// not the token table, on the tools' RPCs and the admin API alike; a
// session signed out, idle or past its lifetime, or naming a member of
// another account, is refused saying to sign in again.
func TestSessionCallers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newSessionEnv(t, client)
		tokens := &fakeTokens{}
		board := taskwirev1.BoardService_ServiceDesc.ServiceName
		auditor := &fakeAuditor{}
		tools := startWorker(t, func(c *Config) { c.Tokens, c.Sessions, c.Auditor = tokens, e.svc, auditor })
		admin := startWorker(t, func(c *Config) { c.Tokens, c.Sessions, c.OperatorServices = tokens, e.svc, []string{board} })
		call := func(w *testWorker, c identity.Caller) error {
			_, err := w.client.GetTask(identity.AppendToOutgoing(context.Background(), c), &taskwirev1.GetTaskRequest{Ref: "T-1"})
			return err
		}
		refused := func(what string, err error, want string) {
			t.Helper()
			if status.Code(err) != codes.Unauthenticated || !strings.Contains(status.Convert(err).Message(), want) {
				t.Errorf("%s: %v, want Unauthenticated saying %q", what, err, want)
			}
		}

		cookie, live := e.signIn(t, "alice")
		for name, w := range map[string]*testWorker{"a tool": tools, "the admin API": admin} {
			if err := call(w, e.console(live, "alice")); err != nil {
				t.Errorf("a live session on %s: %v, want it through", name, err)
			}
		}
		if got := auditor.recorded(); len(got) != 1 || got[0].TokenID != live || got[0].MemberID != e.members["alice"] {
			t.Errorf("audit events of a console call = %+v, want one naming the session %s as the token", got, live)
		}
		if got := tokens.touched; len(got) != 0 {
			t.Errorf("token table asked about %q, want console callers checked against their sessions only", got)
		}
		refused("alice's session acting as mia", call(tools, e.console(live, "mia")), "not a member of tenant acme")
		refused("a session that does not exist", call(tools, e.console("madeup", "alice")), "sign in again")

		if _, err := e.svc.SignOut(context.Background(), &taskwirev1.SignOutRequest{Cookie: cookie}); err != nil {
			t.Fatal(err)
		}
		refused("a session signed out", call(tools, e.console(live, "alice")), "This session has ended")

		_, idle := e.signIn(t, "alice")
		kept, busy := e.signIn(t, "alice")
		e.clock.add(3 * time.Hour)
		if _, err := e.svc.CheckSession(context.Background(), &taskwirev1.CheckSessionRequest{Cookie: kept}); err != nil {
			t.Fatal(err)
		}
		e.clock.add(90 * time.Minute)
		refused("a session idle for 4h30m", call(tools, e.console(idle, "alice")), "4 hours without use")
		if err := call(tools, e.console(busy, "alice")); err != nil {
			t.Errorf("a session used 90 minutes ago: %v, want it through", err)
		}
		e.clock.add(2 * time.Hour)
		refused("a session past its lifetime", call(tools, e.console(busy, "alice")), "lifetime of 6 hours")
	})
}

// TestSessionCallersNeedAChecker: a worker told of no session service
// takes no console callers.
func TestSessionCallersNeedAChecker(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.Tokens = &fakeTokens{} })
	c := identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "sid", Kind: identity.KindSession}
	_, err := w.client.GetTask(identity.AppendToOutgoing(context.Background(), c), &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("a console caller without Config.Sessions: %v, want Unauthenticated", err)
	}
}

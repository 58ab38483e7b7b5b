package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/sessions"
)

// signInBy signs in with a link's secret through the session service, and
// returns the memberships as "acme/alice".
func signInBy(t *testing.T, client *ent.Client, secret string) ([]string, *taskwirev1.Account) {
	t.Helper()
	log, err := audit.New(audit.Config{Client: client, CursorKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := sessions.New(sessions.Config{Client: client, Audit: log, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := svc.SignIn(context.Background(), &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Link{Link: secret}})
	if err != nil {
		t.Fatalf("SignIn(link) = %v, want a session", err)
	}
	var ms []string
	for _, m := range resp.GetMemberships() {
		ms = append(ms, m.GetTenant()+"/"+m.GetHandle())
	}
	return ms, resp.GetAccount()
}

// console returns the context of a call by who ("acme/alice") signed in to
// the console, as the worker's chain leaves it.
func (e *env) console(t *testing.T, who string) context.Context {
	t.Helper()
	tenant, _, _ := strings.Cut(who, "/")
	return identity.NewContext(context.Background(), identity.Caller{
		Tenant: tenant, Member: e.members[who], Scopes: []string{"read", "comment", "write"}, TokenID: "sid-" + who, Kind: identity.KindSession,
	})
}

func TestCreateSignInLink(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		link := func(ctx context.Context, handle string, ttl time.Duration) (*adminv1.CreateSignInLinkResponse, error) {
			req := &adminv1.CreateSignInLinkRequest{Tenant: "acme", Handle: handle}
			if ttl != 0 {
				req.Ttl = durationpb.New(ttl)
			}
			return e.svc.CreateSignInLink(ctx, req)
		}
		before := time.Now()
		resp, err := link(e.as(t, "operator"), "alice", 0)
		if err != nil {
			t.Fatalf("CreateSignInLink(alice) as the operator = %v, want a link", err)
		}
		if exp := resp.GetExpireTime().AsTime(); exp.Before(before.Add(24*time.Hour-time.Second)) || exp.After(time.Now().Add(24*time.Hour)) {
			t.Errorf("CreateSignInLink expires %v, want in 24 hours", exp)
		}
		ms, acc := signInBy(t, client, resp.GetSecret())
		if strings.Join(ms, " ") != "acme/alice" || acc.GetEmail() != "" || acc.GetHasPassword() {
			t.Errorf("signing in by alice's link = %v as %v, want acme/alice, an account with no email or password yet", ms, acc)
		}
		// A second link signs in to the same account.
		resp, err = link(e.as(t, "acme/alice"), "alice", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, again := signInBy(t, client, resp.GetSecret()); again.GetId() != acc.GetId() {
			t.Errorf("alice's second link signs in account %d, want %d", again.GetId(), acc.GetId())
		}

		for _, c := range []struct {
			name   string
			ctx    context.Context
			handle string
			ttl    time.Duration
			kind   domainerr.Kind // Internal: allowed
		}{
			{"an admin for a member", e.as(t, "acme/adam"), "mia", 0, domainerr.Internal},
			{"an owner in the console", e.console(t, "acme/alice"), "mia", 0, domainerr.Internal},
			{"an admin for an owner", e.as(t, "acme/adam"), "alice", 0, domainerr.PermissionDenied},
			{"an admin in the console for an owner", e.console(t, "acme/adam"), "alice", 0, domainerr.PermissionDenied},
			{"a member", e.as(t, "acme/mia"), "vic", 0, domainerr.PermissionDenied},
			{"a member in the console", e.console(t, "acme/mia"), "mia", 0, domainerr.PermissionDenied},
			{"an admin of another tenant", e.as(t, "globex/gus"), "mia", 0, domainerr.NotFound},
			{"for an assistant", e.as(t, "acme/alice"), "bot", 0, domainerr.Invalid},
			{"for no one", e.as(t, "acme/alice"), "nobody", 0, domainerr.NotFound},
			{"for 8 days", e.as(t, "acme/alice"), "mia", 8 * 24 * time.Hour, domainerr.Invalid},
		} {
			_, err := link(c.ctx, c.handle, c.ttl)
			if c.kind == domainerr.Internal && err != nil || c.kind != domainerr.Internal && domainerr.KindOf(err) != c.kind {
				t.Errorf("CreateSignInLink by %s = %v, want %v", c.name, err, c.kind)
			}
		}
	})
}

// TestCreateSignInLinkRemovedMember: a removed member gets no link.
func TestCreateSignInLinkRemovedMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := e.as(t, "acme/alice")
		if _, err := e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Handle: "mia"}); err != nil {
			t.Fatal(err)
		}
		_, err := e.svc.CreateSignInLink(ctx, &adminv1.CreateSignInLinkRequest{Handle: "mia"})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "removed") {
			t.Errorf("CreateSignInLink(removed mia) = %v, want a conflict saying she was removed", err)
		}
	})
}

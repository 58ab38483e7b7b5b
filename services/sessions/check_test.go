package sessions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/session"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/sessions"
)

func (e *env) check(cookie string) (*taskwirev1.CheckSessionResponse, error) {
	return e.svc.CheckSession(context.Background(), &taskwirev1.CheckSessionRequest{Cookie: cookie})
}

func TestCheckSession(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		cookie := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		resp, err := e.check(cookie)
		if err != nil {
			t.Fatalf("CheckSession = %v, want the session", err)
		}
		if resp.GetAccount().GetId() != int64(e.alice) || len(resp.GetMemberships()) != 2 {
			t.Errorf("CheckSession = account %d with %d memberships, want %d with 2", resp.GetAccount().GetId(), len(resp.GetMemberships()), e.alice)
		}
		sid, _, _ := strings.Cut(cookie, ".")
		for _, bad := range []string{"", "nodot", sid + ".wrongsecret", "unknownsid.secret"} {
			_, err := e.check(bad)
			wantUnauthenticated(t, "CheckSession("+bad+")", err, "sign in again")
		}
	})
}

// A session used within the idle timeout lives on, up to its lifetime;
// unused for longer, it ends.
func TestCheckSessionIdleAndLifetime(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		cookie := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		// Used every 11 hours, it outlives the 12-hour idle timeout, but
		// not its 7-day lifetime.
		ended := false
		for range 16 {
			e.clock.Add(11 * time.Hour)
			_, err := e.check(cookie)
			if e.clock.Now().Before(e.clock.t0().Add(sessions.DefaultLifetime)) {
				if err != nil {
					t.Fatalf("CheckSession after %v of use = %v, want the session", e.clock.Now().Sub(e.clock.t0()), err)
				}
				continue
			}
			wantUnauthenticated(t, "CheckSession past the lifetime", err, "lifetime of 7 days")
			ended = true
			break
		}
		if !ended {
			t.Fatal("the session outlived its lifetime")
		}

		idle := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		e.clock.Add(12*time.Hour + time.Second)
		_, err := e.check(idle)
		wantUnauthenticated(t, "CheckSession after 12h idle", err, "12 hours without use")
	})
}

// Checks note the last use at most once a minute.
func TestCheckSessionTouches(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		resp := e.signIn(t, aliceEmail, alicePassword)
		lastSeen := func() time.Time {
			row, err := client.Session.Query().Where(session.Sid(resp.GetSession().GetId())).Only(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return row.LastSeenAt
		}
		start := lastSeen()
		e.clock.Add(30 * time.Second)
		e.check(resp.GetCookie())
		if got := lastSeen(); !got.Equal(start) {
			t.Errorf("last seen after a check 30s later = %v, want unchanged %v", got, start)
		}
		e.clock.Add(31 * time.Second)
		e.check(resp.GetCookie())
		if got, want := lastSeen(), e.clock.Now(); !got.Equal(want) {
			t.Errorf("last seen after a check 61s later = %v, want %v", got, want)
		}
	})
}

func TestSignOut(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		laptop := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		phone := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		tablet := e.signIn(t, aliceEmail, alicePassword).GetCookie()

		out, err := e.svc.SignOut(ctx, &taskwirev1.SignOutRequest{Cookie: laptop})
		if err != nil || out.GetEnded() != 1 {
			t.Fatalf("SignOut(laptop) = %v, %v; want 1 ended", out, err)
		}
		_, err = e.check(laptop)
		wantUnauthenticated(t, "CheckSession(signed out)", err, "This session has ended")
		if _, err := e.check(phone); err != nil {
			t.Errorf("CheckSession(phone) after the laptop signed out = %v, want the session", err)
		}

		out, err = e.svc.SignOut(ctx, &taskwirev1.SignOutRequest{Cookie: phone, Everywhere: true})
		if err != nil || out.GetEnded() != 2 {
			t.Fatalf("SignOut(everywhere) = %v, %v; want 2 ended", out, err)
		}
		for _, c := range []string{phone, tablet} {
			_, err = e.check(c)
			wantUnauthenticated(t, "CheckSession after signing out everywhere", err, "This session has ended")
		}
		if out, err := e.svc.SignOut(ctx, &taskwirev1.SignOutRequest{Cookie: phone}); err != nil || out.GetEnded() != 0 {
			t.Errorf("SignOut again = %v, %v; want 0 ended, no error", out, err)
		}
	})
}

func TestSetPassword(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		mia := e.account(t, "", "", "acme/mia")
		resp, err := e.svc.SignIn(ctx, linkReq(e.newLink(t, mia, time.Hour, "")))
		if err != nil {
			t.Fatal(err)
		}
		cookie := resp.GetCookie()
		set := func(email, current, pw string) error {
			_, err := e.svc.SetPassword(ctx, &taskwirev1.SetPasswordRequest{Cookie: cookie, Email: email, CurrentPassword: current, NewPassword: pw})
			return err
		}
		for _, c := range []struct {
			email, current, pw string
			kind               domainerr.Kind
		}{
			{"mia@example.com", "", "too short", domainerr.Invalid},
			{"", "", "long enough password", domainerr.Invalid}, // no email yet
			{"not-an-email", "", "long enough password", domainerr.Invalid},
			{aliceEmail, "", "long enough password", domainerr.Conflict}, // alice's
		} {
			if err := set(c.email, c.current, c.pw); domainerr.KindOf(err) != c.kind {
				t.Errorf("SetPassword(%q, %q) = %v, want %v", c.email, c.pw, err, c.kind)
			}
		}
		if err := set("Mia@Example.com", "", "long enough password"); err != nil {
			t.Fatalf("SetPassword = %v, want it set", err)
		}
		e.signIn(t, "mia@example.com", "long enough password")
		// Now that it has one, the current password is needed.
		if err := set("", "", "another long password"); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("SetPassword without the current one = %v, want Invalid", err)
		}
		if err := set("", "wrong current pw", "another long password"); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("SetPassword with a wrong current one = %v, want PermissionDenied", err)
		}
		elsewhere := e.signIn(t, "mia@example.com", "long enough password").GetCookie()
		if err := set("", "long enough password", "another long password"); err != nil {
			t.Errorf("SetPassword with the current one = %v, want it set", err)
		}
		e.signIn(t, "mia@example.com", "another long password")
		if _, err := e.check(cookie); err != nil {
			t.Errorf("CheckSession of the session that set the password = %v, want it live", err)
		}
		_, err = e.check(elsewhere)
		wantUnauthenticated(t, "CheckSession of another session after the password changed", err, "your password was changed")
	})
}

// The worker's check of a console caller: the session is live and the
// member acting is its account's; it says whether the account is an
// operator as the database says now.
func TestCheckCaller(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		resp := e.signIn(t, aliceEmail, alicePassword)
		caller := func(key string) identity.Caller {
			tenant, _, _ := strings.Cut(key, "/")
			return identity.Caller{Tenant: tenant, Member: e.members[key], TokenID: resp.GetSession().GetId(), Kind: identity.KindSession}
		}
		check := func(c identity.Caller) error {
			_, err := e.svc.CheckCaller(ctx, c)
			return err
		}
		for _, key := range []string{"acme/alice", "globex/al"} {
			if acc, err := e.svc.CheckCaller(ctx, caller(key)); err != nil || acc.Operator {
				t.Errorf("CheckCaller(%s) = %+v, %v; want no operator, nil", key, acc, err)
			}
		}
		if err := client.Account.Update().SetOperator(true).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if acc, err := e.svc.CheckCaller(ctx, caller("acme/alice")); err != nil || !acc.Operator || acc.Person != aliceEmail {
			t.Errorf("CheckCaller(acme/alice, an operator now) = %+v, %v; want the operator %s", acc, err, aliceEmail)
		}
		wantUnauthenticated(t, "CheckCaller(acme/mia, not alice's)", check(caller("acme/mia")), "not a member of tenant acme")
		other := caller("acme/alice")
		other.Tenant = "globex"
		wantUnauthenticated(t, "CheckCaller(alice's member id in another tenant)", check(other), "not a member of tenant globex")
		unknown := caller("acme/alice")
		unknown.TokenID = "nosuchsession"
		wantUnauthenticated(t, "CheckCaller(unknown session)", check(unknown), "sign in again")

		e.clock.Add(13 * time.Hour)
		wantUnauthenticated(t, "CheckCaller(idle)", check(caller("acme/alice")), "without use")
	})
}

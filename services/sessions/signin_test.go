package sessions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/sessions"
)

func TestSignInWithPassword(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		resp := e.signIn(t, "  Alice@Example.COM ", alicePassword)
		sid, secret, ok := strings.Cut(resp.GetCookie(), ".")
		if !ok || sid != resp.GetSession().GetId() || len(sid) != 26 || len(secret) != 43 {
			t.Errorf("SignIn cookie = %q, want <26-char session id %q>.<43-char secret>", resp.GetCookie(), resp.GetSession().GetId())
		}
		if got, want := resp.GetSession().GetExpireTime().AsTime(), e.clock.Now().Add(sessions.DefaultLifetime); !got.Equal(want) {
			t.Errorf("SignIn session expires %v, want %v", got, want)
		}
		var got []string
		for _, m := range resp.GetMemberships() {
			got = append(got, m.GetTenant()+"/"+m.GetHandle()+"/"+m.GetRole().String())
		}
		want := "acme/alice/MEMBER_ROLE_OWNER globex/al/MEMBER_ROLE_MEMBER"
		if strings.Join(got, " ") != want {
			t.Errorf("SignIn memberships = %v, want %s", got, want)
		}
		if !resp.GetAccount().GetHasPassword() || resp.GetAccount().GetEmail() != aliceEmail {
			t.Errorf("SignIn account = %v, want %s with a password", resp.GetAccount(), aliceEmail)
		}
	})
}

// A wrong password, an unknown email and an account without a password
// get one answer, so the answer tells no one which emails have accounts.
func TestSignInRefusalsAreAlike(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.account(t, "nopass@example.com", "")
		var msgs []string
		for _, c := range []struct{ email, password string }{
			{aliceEmail, "not her password"},
			{"nobody@example.com", alicePassword},
			{"nopass@example.com", alicePassword},
			{"", ""},
		} {
			_, err := e.svc.SignIn(context.Background(), passwordReq(c.email, c.password))
			wantUnauthenticated(t, "SignIn("+c.email+")", err, "email or password is not right")
			msgs = append(msgs, err.Error())
		}
		for _, m := range msgs[1:] {
			if m != msgs[0] {
				t.Errorf("SignIn refusals differ: %q and %q, want one sentence", msgs[0], m)
			}
		}
	})
}

func TestSignInDisabledAccount(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		if err := client.Account.UpdateOneID(e.alice).SetDisabledAt(e.clock.Now()).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, err := e.svc.SignIn(context.Background(), passwordReq(aliceEmail, alicePassword))
		wantUnauthenticated(t, "SignIn(disabled)", err, "disabled")
		// A wrong password on a disabled account still says only that.
		_, err = e.svc.SignIn(context.Background(), passwordReq(aliceEmail, "wrong password!"))
		wantUnauthenticated(t, "SignIn(disabled, wrong password)", err, "email or password is not right")
	})
}

// A hash made with other parameters than today's is made again at the
// next sign-in, and the password still works.
func TestSignInRehashes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		old := weakHash(t, alicePassword)
		if err := client.Account.UpdateOneID(e.alice).SetPasswordHash(old).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		e.signIn(t, aliceEmail, alicePassword)
		acc, err := client.Account.Query().Where(account.ID(e.alice)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := *acc.PasswordHash; got == old || !strings.HasPrefix(got, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Errorf("password hash after sign-in = %q, want one made again with m=19456,t=2,p=1", got)
		}
		e.signIn(t, aliceEmail, alicePassword)
	})
}

func TestSignInLinkWorksOnce(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		secret := e.newLink(t, e.alice, time.Hour, "")
		resp, err := e.svc.SignIn(ctx, linkReq(secret))
		if err != nil {
			t.Fatalf("SignIn(link) = %v, want a session", err)
		}
		if resp.GetSession().GetMethod() != sessions.ByLink {
			t.Errorf("SignIn(link) method = %q, want %q", resp.GetSession().GetMethod(), sessions.ByLink)
		}
		_, err = e.svc.SignIn(ctx, linkReq(secret))
		wantUnauthenticated(t, "SignIn(used link)", err, "used already")
		_, err = e.svc.SignIn(ctx, linkReq(secret+"x"))
		wantUnauthenticated(t, "SignIn(made-up link)", err, "not valid")

		expiring := e.newLink(t, e.alice, time.Hour, "")
		e.clock.Add(time.Hour)
		_, err = e.svc.SignIn(ctx, linkReq(expiring))
		wantUnauthenticated(t, "SignIn(expired link)", err, "expired at")
	})
}

// An invitation makes its member the account's when it is used, and the
// member then shows among the account's memberships.
func TestInvitationLinksMember(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		mia := e.account(t, "mia@example.com", "")
		if got := e.memberAccount(t, "acme/mia"); got != 0 {
			t.Fatalf("acme/mia account before the invitation = %d, want none", got)
		}
		resp, err := e.svc.SignIn(context.Background(), linkReq(e.newLink(t, mia, time.Hour, "acme/mia")))
		if err != nil {
			t.Fatalf("SignIn(invitation) = %v, want a session", err)
		}
		if got := e.memberAccount(t, "acme/mia"); got != mia {
			t.Errorf("acme/mia account after the invitation = %d, want %d", got, mia)
		}
		if ms := resp.GetMemberships(); len(ms) != 1 || ms[0].GetHandle() != "mia" || ms[0].GetTenant() != "acme" {
			t.Errorf("SignIn(invitation) memberships = %v, want acme/mia", ms)
		}
		if resp.GetAccount().GetHasPassword() {
			t.Errorf("SignIn(invitation) account has a password, want none yet")
		}
	})
}

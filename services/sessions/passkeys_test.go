package sessions_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/passkey"
	"github.com/taskwire/taskwire/internal/passkeytest"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/sessions"
)

const passkeyURL = "https://taskwire.example"

// withPasskeys is e's service for a deployment at passkeyURL.
func (e *env) withPasskeys(t *testing.T) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var err error
	e.svc, err = sessions.New(sessions.Config{Client: e.client, Audit: e.audit, Logger: log, Now: e.clock.Now, PublicURL: passkeyURL})
	if err != nil {
		t.Fatal(err)
	}
}

// addPasskey registers a passkey of a's on the account of cookie.
func (e *env) addPasskey(t *testing.T, cookie string, a *passkeytest.Authenticator, name string) (*taskwirev1.Passkey, error) {
	t.Helper()
	ctx := context.Background()
	begin, err := e.svc.BeginPasskeyRegistration(ctx, &taskwirev1.BeginPasskeyRegistrationRequest{Cookie: cookie})
	if err != nil {
		t.Fatalf("BeginPasskeyRegistration = %v", err)
	}
	cred, err := a.Create(begin.GetOptionsJson())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.svc.FinishPasskeyRegistration(ctx, &taskwirev1.FinishPasskeyRegistrationRequest{
		Cookie: cookie, State: begin.GetState(), CredentialJson: cred, Name: name})
	return resp.GetPasskey(), err
}

// passkeySignIn signs in with a's passkey.
func (e *env) passkeySignIn(t *testing.T, a *passkeytest.Authenticator) (*taskwirev1.SignInResponse, error) {
	t.Helper()
	ctx := context.Background()
	begin, err := e.svc.BeginPasskeySignIn(ctx, &taskwirev1.BeginPasskeySignInRequest{})
	if err != nil {
		t.Fatalf("BeginPasskeySignIn = %v", err)
	}
	cred, err := a.Get(begin.GetOptionsJson())
	if err != nil {
		t.Fatal(err)
	}
	return e.svc.SignIn(ctx, &taskwirev1.SignInRequest{
		Method: &taskwirev1.SignInRequest_Passkey{Passkey: &taskwirev1.PasskeySignIn{State: begin.GetState(), CredentialJson: cred}}})
}

// TestPasskeySignIn: alice adds a passkey, and signs in with it with no
// email typed; the session says passkey, her account counts the passkey,
// and its last use and counter are noted.
func TestPasskeySignIn(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		e.withPasskeys(t)
		cookie := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		a := passkeytest.New(passkeyURL)
		pk, err := e.addPasskey(t, cookie, a, "  Work   laptop ")
		if err != nil || pk.GetName() != "Work laptop" || pk.GetLastUseTime() != nil {
			t.Fatalf("adding a passkey = %v, %v, want one named \"Work laptop\", never used", pk, err)
		}
		e.clock.Add(time.Minute)
		resp, err := e.passkeySignIn(t, a)
		if err != nil {
			t.Fatalf("SignIn(passkey) = %v, want a session", err)
		}
		if resp.GetAccount().GetId() != int64(e.alice) || resp.GetSession().GetMethod() != sessions.ByPasskey || len(resp.GetMemberships()) != 2 {
			t.Errorf("SignIn(passkey) = account %d method %q with %d memberships, want alice's (%d) by passkey with 2",
				resp.GetAccount().GetId(), resp.GetSession().GetMethod(), len(resp.GetMemberships()), e.alice)
		}
		check, err := e.svc.CheckSession(context.Background(), &taskwirev1.CheckSessionRequest{Cookie: resp.GetCookie()})
		if err != nil || check.GetAccount().GetPasskeys() != 1 {
			t.Errorf("CheckSession after adding one passkey: passkeys = %d, %v, want 1", check.GetAccount().GetPasskeys(), err)
		}
		row, err := client.Passkey.Query().Where(passkey.AccountID(e.alice)).Only(context.Background())
		if err != nil || row.SignCount != 2 || row.LastUsedAt == nil || !row.LastUsedAt.Equal(e.clock.Now()) {
			t.Errorf("the passkey after signing in = %+v, %v, want sign_count 2 and last used now", row, err)
		}
		events, _, err := e.audit.List(context.Background(), "acme", audit.Filter{}, "", 1)
		if err != nil || len(events) != 1 || events[0].TokenID != resp.GetSession().GetId() || !slices.Contains(events[0].Targets, "method=passkey") {
			t.Errorf("the last audit event of acme = %+v, %v, want the passkey sign-in with method=passkey", events, err)
		}
		list, err := e.svc.ListPasskeys(context.Background(), &taskwirev1.ListPasskeysRequest{Cookie: cookie})
		if err != nil || len(list.GetPasskeys()) != 1 || list.GetPasskeys()[0].GetLastUseTime() == nil {
			t.Errorf("ListPasskeys = %v, %v, want the one passkey, used", list, err)
		}
	})
}

// TestPasskeyRefusals: an answer from another origin, a ceremony past
// its 5 minutes, the state of one ceremony used for the other, a cloned
// authenticator (its counter went back) and a removed passkey sign no
// one in and add nothing, each saying what to do.
func TestPasskeyRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		ctx := context.Background()
		e := newEnv(t, client)
		e.withPasskeys(t)
		cookie := e.signIn(t, aliceEmail, alicePassword).GetCookie()

		evil := passkeytest.New("https://taskwire.example.evil.test")
		if _, err := e.addPasskey(t, cookie, evil, "phished"); domainerr.KindOf(err) != domainerr.Invalid {
			t.Errorf("adding a passkey made on another origin = %v, want Invalid", err)
		}
		a := passkeytest.New(passkeyURL)
		if _, err := e.addPasskey(t, cookie, a, "Laptop"); err != nil {
			t.Fatal(err)
		}

		begin, _ := e.svc.BeginPasskeySignIn(ctx, &taskwirev1.BeginPasskeySignInRequest{})
		cred, _ := a.Get(begin.GetOptionsJson())
		e.clock.Add(sessions.PasskeyTTL + time.Second)
		_, err := e.svc.SignIn(ctx, &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Passkey{
			Passkey: &taskwirev1.PasskeySignIn{State: begin.GetState(), CredentialJson: cred}}})
		if !strings.Contains(domainerr.Message(err), "expired after 5 minutes") {
			t.Errorf("SignIn(passkey) after 5 minutes = %v, want that the request expired", err)
		}

		reg, _ := e.svc.BeginPasskeyRegistration(ctx, &taskwirev1.BeginPasskeyRegistrationRequest{Cookie: cookie})
		cred, _ = a.Get(reg.GetOptionsJson())
		_, err = e.svc.SignIn(ctx, &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Passkey{
			Passkey: &taskwirev1.PasskeySignIn{State: reg.GetState(), CredentialJson: cred}}})
		wantUnauthenticated(t, "SignIn(passkey) with a registration's state", err, "did not sign you in")

		a.Counter = 0 // a copy of the key that signed less often
		_, err = e.passkeySignIn(t, a)
		wantUnauthenticated(t, "SignIn(passkey) with a counter gone back", err, "may have been cloned")

		if _, err := client.Passkey.Delete().Exec(ctx); err != nil {
			t.Fatal(err)
		}
		a.Counter = 100
		_, err = e.passkeySignIn(t, a)
		wantUnauthenticated(t, "SignIn(passkey) with a removed passkey", err, "not registered here")
		if n, _ := client.Session.Query().Count(ctx); n != 1 {
			t.Errorf("sessions after the refusals = %d, want only the password's", n)
		}
		want := []string{
			"alice " + sessions.MethodSignIn + " ok false ",
			"alice " + sessions.MethodSignIn + " refused false passkey signature counter went back (cloned authenticator?)",
		}
		if got := e.auditLines(t, "acme", ""); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("audit log of acme =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := e.logs.String(); !strings.Contains(got, "security: a passkey whose signature counter went back was refused") {
			t.Errorf("service log = %q, want a security warning for the cloned passkey", got)
		}
	})
}

// TestDeletePasskey: a person removes their own passkeys, not another's,
// and not the last way they have to sign in.
func TestDeletePasskey(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		ctx := context.Background()
		e := newEnv(t, client)
		e.withPasskeys(t)
		alice := e.signIn(t, aliceEmail, alicePassword).GetCookie()
		pk, err := e.addPasskey(t, alice, passkeytest.New(passkeyURL), "Phone")
		if err != nil {
			t.Fatal(err)
		}
		e.account(t, "mia@example.com", alicePassword+" too", "acme/mia")
		mia := e.signIn(t, "mia@example.com", alicePassword+" too").GetCookie()
		_, err = e.svc.DeletePasskey(ctx, &taskwirev1.DeletePasskeyRequest{Cookie: mia, Id: pk.GetId()})
		if domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("DeletePasskey(alice's, as mia) = %v, want NotFound", err)
		}
		if err := client.Account.UpdateOneID(e.alice).ClearPasswordHash().Exec(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.DeletePasskey(ctx, &taskwirev1.DeletePasskeyRequest{Cookie: alice, Id: pk.GetId()})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "only passkey") {
			t.Errorf("DeletePasskey(the last way in) = %v, want Conflict saying it is the only passkey", err)
		}
		second, err := e.addPasskey(t, alice, passkeytest.New(passkeyURL), "Key")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.DeletePasskey(ctx, &taskwirev1.DeletePasskeyRequest{Cookie: alice, Id: pk.GetId()}); err != nil {
			t.Errorf("DeletePasskey(one of two) = %v, want it removed", err)
		}
		list, err := e.svc.ListPasskeys(ctx, &taskwirev1.ListPasskeysRequest{Cookie: alice})
		if err != nil || len(list.GetPasskeys()) != 1 || list.GetPasskeys()[0].GetId() != second.GetId() {
			t.Errorf("ListPasskeys after removing one = %v, %v, want only %q", list, err, second.GetName())
		}
	})
}

// TestNoPasskeys: a worker that does not know the public URL's host (none
// set, or an IP address, which browsers refuse) offers no passkeys, and
// says what the administrator must set.
func TestNoPasskeys(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		for _, u := range []string{"", "http://127.0.0.1:8080"} {
			svc, err := sessions.New(sessions.Config{Client: client, Audit: e.audit, Logger: slog.New(slog.DiscardHandler), PublicURL: u})
			if err != nil {
				t.Fatal(err)
			}
			_, err = svc.BeginPasskeySignIn(context.Background(), &taskwirev1.BeginPasskeySignInRequest{})
			if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "--public-url") {
				t.Errorf("BeginPasskeySignIn with public URL %q = %v, want Conflict naming --public-url", u, err)
			}
		}
	})
}

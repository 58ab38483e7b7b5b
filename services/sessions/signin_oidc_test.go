package sessions_test

import (
	"context"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/accountidentity"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/sessions"
)

func oidcReq(subject, email string, verified bool) *taskwirev1.SignInRequest {
	return &taskwirev1.SignInRequest{Method: &taskwirev1.SignInRequest_Oidc{Oidc: &taskwirev1.OIDCSignIn{
		Provider: "corp", Issuer: "https://id.corp.example", Subject: subject, Email: email, EmailVerified: verified}}}
}

// TestSignInOIDCByInvitedEmail: the first sign-in at a provider finds the
// account by its verified email and links it; later ones find it by the
// provider's subject, even after the email changed there.
func TestSignInOIDCByInvitedEmail(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		resp, err := e.svc.SignIn(context.Background(), oidcReq("sub-alice", "Alice@Example.com", true))
		if err != nil {
			t.Fatalf("SignIn(oidc, alice's email) = %v, want a session", err)
		}
		if resp.GetAccount().GetId() != int64(e.alice) || resp.GetSession().GetMethod() != sessions.ByOIDC || len(resp.GetMemberships()) != 2 {
			t.Errorf("SignIn(oidc) = account %d method %q with %d memberships, want alice's (%d) by oidc with 2",
				resp.GetAccount().GetId(), resp.GetSession().GetMethod(), len(resp.GetMemberships()), e.alice)
		}
		resp, err = e.svc.SignIn(context.Background(), oidcReq("sub-alice", "alice@new-name.example", true))
		if err != nil || resp.GetAccount().GetId() != int64(e.alice) {
			t.Errorf("SignIn(oidc, same subject, new email) = %v, %v, want alice's account", resp.GetAccount(), err)
		}
		n, err := client.AccountIdentity.Query().Where(accountidentity.AccountID(e.alice)).Count(context.Background())
		if err != nil || n != 1 {
			t.Errorf("alice's identities = %d, %v, want 1", n, err)
		}
	})
}

// TestSignInOIDCRefusals: a person no one invited, an email the provider
// did not verify, and a disabled account are refused, each saying what
// to do; no account or identity is made for them.
func TestSignInOIDCRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		_, err := e.svc.SignIn(context.Background(), oidcReq("sub-stranger", "stranger@example.com", true))
		wantUnauthenticated(t, "SignIn(oidc, uninvited)", err, "No one has invited stranger@example.com")
		_, err = e.svc.SignIn(context.Background(), oidcReq("sub-alice", aliceEmail, false))
		wantUnauthenticated(t, "SignIn(oidc, unverified)", err, "did not confirm an email")
		if err := client.Account.UpdateOneID(e.alice).SetDisabledAt(e.clock.Now()).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.SignIn(context.Background(), oidcReq("sub-alice", aliceEmail, true))
		wantUnauthenticated(t, "SignIn(oidc, disabled)", err, "")
		if n, _ := client.Account.Query().Count(context.Background()); n != 1 {
			t.Errorf("accounts after refused sign-ins = %d, want alice's only", n)
		}
	})
}

// TestSignInOIDCAcceptsInvitations: a person invited by email who signs
// in at a provider vouching for that email joins the tenant, as the
// invitation's link would have made them; the link is used up.
func TestSignInOIDCAcceptsInvitations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		mia := e.account(t, "mia@example.com", "")
		secret := e.newLink(t, mia, time.Hour, "acme/mia")
		resp, err := e.svc.SignIn(context.Background(), oidcReq("sub-mia", "mia@example.com", true))
		if err != nil {
			t.Fatalf("SignIn(oidc, invited mia) = %v, want a session", err)
		}
		if len(resp.GetMemberships()) != 1 || resp.GetMemberships()[0].GetHandle() != "mia" || e.memberAccount(t, "acme/mia") != mia {
			t.Errorf("SignIn(oidc, invited mia) memberships = %v, want acme/mia", resp.GetMemberships())
		}
		_, err = e.svc.SignIn(context.Background(), linkReq(secret))
		wantUnauthenticated(t, "SignIn(the invitation's link, after the OpenID sign-in)", err, "")
	})
}

package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// addAuthenticator gives p's browser a platform authenticator that holds
// passkeys and verifies its user (Chrome's virtual one, through the
// DevTools protocol): what a laptop's fingerprint reader would be.
func (p *person) addAuthenticator() {
	p.t.Helper()
	no := false
	if _, err := chromedp.Call(p.ctx, webauthn.Enable, webauthn.EnableParams{EnableUI: &no}); err != nil {
		p.t.Fatalf("WebAuthn.enable: %v", err)
	}
	_, err := chromedp.Call(p.ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
	if err != nil {
		p.t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}
}

// press fills the fields of form and clicks its submit button, without
// waiting for a page: the script answers it.
func (p *person) press(form string, fields map[string]string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageWait)
	defer cancel()
	p.fill(ctx, form, fields)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(form+` button[type="submit"]`))); err != nil {
		p.t.Fatalf("pressing the button of %s: %v", form, err)
	}
}

// TestBrowserPasskey: in a real Chromium with a platform authenticator,
// a person who came in by a sign-in link adds a passkey on the account
// page, signs out, and signs in with the passkey (no email, no password)
// to the board, through the browser's WebAuthn JSON methods and through
// the script's own conversions. axe finds nothing serious on the account
// page listing the passkey.
func TestBrowserPasskey(t *testing.T) {
	h := startOnLocalhost(t, nodetest.Setups()[0])
	base := h.Sys.Config().PublicURL
	w, err := h.Sys.Welcome(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tenant := h.Sys.First().Tenant.Slug
	p := newPerson(t, &site{base: base, tenant: tenant})
	p.addAuthenticator()

	p.open(strings.TrimPrefix(w.SignInLink, base))
	p.submit("form#signin-link", nil, "")
	if p.path() != "/account" {
		t.Fatalf("signing in with the link went to %s, want /account", p.path())
	}
	p.press("form#passkey-add", map[string]string{"name": "Work laptop"})
	p.waitFor("the passkey listed after adding it", `location.search === "?passkey=added" && !!document.querySelector("#passkeys li")`)
	if got := p.text("#passkeys li .name"); got != "Work laptop" {
		t.Errorf("the listed passkey is named %q, want Work laptop", got)
	}
	if got := p.text("#flash"); !strings.Contains(got, "passkey is added") {
		t.Errorf("the account page after adding a passkey says %q, want that it is added", got)
	}
	p.checkPage("the account page with a passkey", "account-passkeys")
	p.submit("form#signout", nil, "")

	if p.open("/"); p.path() != "/signin" {
		t.Fatalf("/ after signing out went to %s, want /signin", p.path())
	}
	// The sign-in takes the script's own base64url path, as in a browser
	// that predates PublicKeyCredential's JSON methods; adding took the
	// browser's.
	p.eval(`PublicKeyCredential.parseRequestOptionsFromJSON = undefined; PublicKeyCredential.prototype.toJSON = undefined; 0`)
	p.press("form#passkey-signin", nil)
	board := "/t/" + tenant + "/"
	p.waitFor("the board after signing in with the passkey", `location.pathname === `+jsString(board)+` && document.querySelectorAll("main#board section.lane").length === 4`)
	p.open("/account")
	if got := p.text("#passkeys li .meta"); !strings.Contains(got, "last used") {
		t.Errorf("the passkey after signing in with it says %q, want when it was last used", got)
	}
}

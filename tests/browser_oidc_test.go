package tests

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/internal/oidctest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserSignInOIDC: in a real browser, a person invited by email
// presses "Sign in with Corp SSO", signs in at the company's OpenID
// provider (a real one, started by the test) and lands on the board of
// the tenant that invited them.
func TestBrowserSignInOIDC(t *testing.T) {
	h := nodetest.StartWith(t, nodetest.Setups()[0], func(cfg *node.SystemConfig) {
		op := oidctest.Start(t, []oidctest.Person{oidcAda}, cfg.PublicURL+"/signin/oidc/corp/callback")
		cfg.OIDCProviders = []oidcsignin.ProviderConfig{{Name: "corp", Title: "Corp SSO", Issuer: op.Issuer,
			ClientID: op.ClientID, ClientSecret: op.ClientSecret, Domains: []string{"corp.example"}}}
	})
	tenant := h.Sys.First().Tenant.Slug
	if code, out := nodetest.NewAdminClient(t, h).Post(h.OperatorSecret(t), "InvitePerson", `{"tenant":"`+tenant+`","email":"`+oidcAda.Email+`"}`); code != http.StatusOK {
		t.Fatalf("InvitePerson = %d %v", code, out)
	}
	p := newPerson(t, &site{base: h.Sys.Config().PublicURL, tenant: tenant})
	p.open("/signin")
	if got := p.text("#providers a"); got != "Sign in with Corp SSO" {
		t.Fatalf("the sign-in page's provider button says %q, want Sign in with Corp SSO", got)
	}
	p.checkPage("the sign-in page with a provider", "")
	p.follow("#providers a")
	if got := p.path(); !strings.HasPrefix(got, "/login/username") {
		t.Fatalf("pressing the provider's button went to %s, want the provider's login form", got)
	}
	p.submit(`form[action="/login/username"]`, map[string]string{"username": oidcAda.Username, "password": oidcAda.Password}, "")
	board := "/t/" + tenant + "/"
	p.waitFor("the board after signing in at the provider", `location.pathname === `+jsString(board)+` && document.querySelectorAll("main#board section.lane").length === 4`)
	if got := p.text("header"); !strings.Contains(got, oidcAda.Email) {
		t.Errorf("header = %q, want the signed-in account %s", got, oidcAda.Email)
	}
}

// follow clicks the link sel names and waits for the page it leads to.
func (p *person) follow(sel string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageWait)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.t.Fatalf("following %s: %v", sel, err)
	}
}

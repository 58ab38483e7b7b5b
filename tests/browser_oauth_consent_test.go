package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserOAuthConsent: a person who follows an assistant's
// authorization link while signed out signs in with her password, is
// brought back to the consent page, which names the client and warns
// that its redirect is on this computer, and on Approve the browser lands
// at the client's redirect URI on another origin with the code, state
// and iss: the console's CSP (form-action 'self') must not stop the
// form's redirect there. The code then buys tokens that work.
func TestBrowserOAuthConsent(t *testing.T) {
	landed := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/cb" {
			select {
			case landed <- r.URL.Query():
			default:
			}
		}
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Client</title></head><body><main id="client">back</main></body></html>`)
	}))
	defer client.Close()
	s, h := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	p.submit("form#signout", nil, "")

	redirect := client.URL + "/cb"
	o := &oauthPlain{t: t, base: s.base, endpoint: s.endpoint}
	id := registerClient(t, s.base, redirect)
	v := verifier()
	q := o.request(id, redirect, v)
	authorize := "/oauth/authorize?" + q.Encode()
	p.open(authorize)
	if p.count("form#signin") != 1 {
		t.Fatalf("the authorization link signed out shows %s without form#signin", p.path())
	}
	p.submit("form#signin", map[string]string{"email": browserEmail, "password": browserPassword}, "")
	if p.path() != authorize || p.count("form#consent #approve") != 1 {
		t.Fatalf("signing in went to %s, want back to the consent page %s", p.path(), authorize)
	}
	if got := p.text("main#oauth-consent h1"); !strings.Contains(got, "Taskwire test client") {
		t.Errorf("the consent page's heading = %q, want it to name the client", got)
	}
	if p.count("#consent-local") != 1 {
		t.Error("the consent page does not warn that the redirect is to this computer")
	}
	p.checkPage("the consent page", "oauth-consent")
	p.submit("form#consent", nil, "#approve")
	if p.count("main#client") != 1 {
		t.Fatalf("approving left the browser at %s, want the client's redirect URI (did the CSP's form-action block it?)", p.path())
	}
	got := <-landed
	if got.Get("code") == "" || got.Get("state") != q.Get("state") || got.Get("iss") != s.base {
		t.Fatalf("the client was sent %v, want a code, state %s and iss %s", got, q.Get("state"), s.base)
	}
	status, tokens := o.exchange(id, redirect, got.Get("code"), v)
	access, _ := tokens["access_token"].(string)
	if status != http.StatusOK || access == "" {
		t.Fatalf("exchanging the code the browser brought = %d %v, want 200 with an access token", status, tokens)
	}
	if code := h.MCPStatus(t, access); code != http.StatusOK {
		t.Errorf("the MCP endpoint answers the new access token with %d, want 200", code)
	}
}

package tests

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/internal/oidctest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

var (
	oidcAda      = oidctest.Person{Username: "ada", Password: "ada at corp", Email: "ada@corp.example", EmailVerified: true, GivenName: "Ada"}
	oidcStranger = oidctest.Person{Username: "stranger", Password: "not invited", Email: "stranger@corp.example", EmailVerified: true}
)

// TestConsoleSignInWithOpenIDProvider: a person invited by email signs in
// with the company's OpenID provider (a real one, in the test) and lands
// on the board of the tenant that invited them; a person no one invited
// is told to ask for an invitation and gets no session.
func TestConsoleSignInWithOpenIDProvider(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.StartWith(t, s, func(cfg *node.SystemConfig) {
				op := oidctest.Start(t, []oidctest.Person{oidcAda, oidcStranger}, cfg.PublicURL+"/signin/oidc/corp/callback")
				cfg.OIDCProviders = []oidcsignin.ProviderConfig{{Name: "corp", Title: "Corp SSO", Issuer: op.Issuer,
					ClientID: op.ClientID, ClientSecret: op.ClientSecret, Domains: []string{"corp.example"}}}
			})
			code, out := nodetest.NewAdminClient(t, h).Post(h.OperatorSecret(t), "InvitePerson", `{"tenant":"default","email":"ada@corp.example"}`)
			if code != http.StatusOK {
				t.Fatalf("InvitePerson = %d %v", code, out)
			}
			base := h.Sys.Config().PublicURL

			b := newBrowser(t, base)
			if page := b.get("/signin"); !strings.Contains(page, `href="/signin/oidc/corp"`) || !strings.Contains(page, "Sign in with Corp SSO") {
				t.Fatalf("the sign-in page offers no Corp SSO button:\n%s", page)
			}
			code, loc, body := b.do("GET", oidcCallbackPath(t, b, base, oidcAda), nil)
			if code != http.StatusSeeOther || loc != "/" || !b.signedIn() {
				t.Fatalf("the callback = %d to %q (signed in %t), want 303 to / with a session:\n%s", code, loc, b.signedIn(), body)
			}
			if board := b.get("/t/default/"); !strings.Contains(board, `id="board"`) {
				t.Errorf("ada's board page has no board:\n%s", board)
			}

			stranger := newBrowser(t, base)
			code, _, body = stranger.do("GET", oidcCallbackPath(t, stranger, base, oidcStranger), nil)
			if code != http.StatusUnauthorized || !strings.Contains(body, "No one has invited stranger@corp.example") || stranger.signedIn() {
				t.Errorf("a stranger's callback = %d (signed in %t), want 401 saying no one invited them:\n%s", code, stranger.signedIn(), body)
			}
		})
	}
}

// oidcCallbackPath starts b's sign-in with the corp provider, signs in
// there as person (with a client of the provider's own, as the browser
// would), and returns the console's callback path the provider sends the
// browser to.
func oidcCallbackPath(t *testing.T, b *browser, base string, person oidctest.Person) string {
	t.Helper()
	code, authorize, body := b.do("GET", "/signin/oidc/corp", nil)
	if code != http.StatusSeeOther {
		t.Fatalf("GET /signin/oidc/corp = %d, want 303 to the provider:\n%s", code, body)
	}
	atProvider := &http.Client{Jar: newJar(t), CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), base) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := atProvider.Get(authorize)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp = oidctest.SignIn(t, atProvider, resp.Request.URL, person)
	resp.Body.Close()
	callback, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(callback.String(), base+"/signin/oidc/corp/callback") {
		t.Fatalf("the provider sent the browser to %q, want the console's callback", resp.Header.Get("Location"))
	}
	return callback.RequestURI()
}

// newJar is a cookie jar for a client of the provider's (plain http on
// loopback, where its cookies are not Secure).
func newJar(t *testing.T) *cookiejar.Jar {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return jar
}

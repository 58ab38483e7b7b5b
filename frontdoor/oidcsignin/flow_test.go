package oidcsignin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/oidctest"
)

var (
	ada     = oidctest.Person{Username: "ada", Password: "correct horse", Email: "Ada@Example.com", EmailVerified: true, GivenName: "Ada", Family: "Lovelace"}
	mallory = oidctest.Person{Username: "mallory", Password: "pw-mallory", Email: "mallory@elsewhere.net", EmailVerified: true}
	unver   = oidctest.Person{Username: "unverified", Password: "pw-unverified", Email: "eve@example.com", EmailVerified: false}
)

// site is a console stand-in: it starts sign-ins and answers the
// callback with the identity (or the error's sentence) as JSON.
type site struct {
	url string
	op  *oidctest.Provider
	rp  *oidcsignin.RP
}

func newSite(t *testing.T, domains ...string) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	s.op = oidctest.Start(t, []oidctest.Person{ada, mallory, unver}, srv.URL+"/signin/oidc/corp/callback")
	box, err := sealed.NewBox(bytes.Repeat([]byte{9}, sealed.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	s.rp, err = oidcsignin.New(oidcsignin.Config{PublicURL: srv.URL, States: box, Logger: slog.New(slog.DiscardHandler),
		Providers: []oidcsignin.ProviderConfig{{Name: "corp", Title: "Corp SSO", Issuer: s.op.Issuer, ClientID: s.op.ClientID, ClientSecret: s.op.ClientSecret, Domains: domains}}})
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("GET /signin/oidc/{p}", func(w http.ResponseWriter, r *http.Request) {
		if err := s.rp.Start(w, r, r.PathValue("p"), "/t/acme/"); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	mux.HandleFunc("GET /signin/oidc/{p}/callback", func(w http.ResponseWriter, r *http.Request) {
		id, next, err := s.rp.Finish(w, r, r.PathValue("p"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": id, "next": next})
	})
	return s
}

// browser is an HTTP client with cookies, following redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// signIn goes to the site's sign-in with corp, signs in at the provider
// as person, and returns the callback's answer.
func (s *site) signIn(t *testing.T, c *http.Client, person oidctest.Person) (int, string) {
	t.Helper()
	resp, err := c.Get(s.url + "/signin/oidc/corp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(resp.Request.URL.String(), s.op.Issuer+"/login/") {
		t.Fatalf("sign-in ended at %s, want the provider's login page", resp.Request.URL)
	}
	resp = oidctest.SignIn(t, c, resp.Request.URL, person)
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// TestSignInAtProvider: the code flow with PKCE against a real provider
// yields the person's issuer, subject and verified email (lowercased),
// and where they were going.
func TestSignInAtProvider(t *testing.T) {
	s := newSite(t)
	code, body := s.signIn(t, browser(t), ada)
	if code != http.StatusOK {
		t.Fatalf("callback = %d %s, want 200", code, body)
	}
	var got struct {
		ID   oidcsignin.Identity
		Next string
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID.Issuer != s.op.Issuer || got.ID.Subject == "" || got.ID.Email != "ada@example.com" || !got.ID.EmailVerified || got.ID.Provider != "corp" || got.Next != "/t/acme/" {
		t.Errorf("identity = %+v next %q, want ada@example.com verified at %s, next /t/acme/", got.ID, got.Next, s.op.Issuer)
	}
}

// TestDomainsRule: a provider limited to example.com refuses an email of
// another domain, and an unverified email of its own.
func TestDomainsRule(t *testing.T) {
	s := newSite(t, "example.com")
	for _, p := range []oidctest.Person{mallory, unver} {
		code, body := s.signIn(t, browser(t), p)
		if code != http.StatusForbidden || !strings.Contains(body, "not one this console accepts") {
			t.Errorf("%s: callback = %d %q, want 403 saying the account is not accepted", p.Username, code, body)
		}
	}
	if code, body := s.signIn(t, browser(t), ada); code != http.StatusOK {
		t.Errorf("ada: callback = %d %q, want 200", code, body)
	}
}

// TestCallbackNeedsItsOwnStart: a callback reached without the state
// cookie of its start (another browser, a forged link), or replayed once
// used, is refused.
func TestCallbackNeedsItsOwnStart(t *testing.T) {
	s := newSite(t)
	c := browser(t)
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), s.url+"/signin/oidc/corp/callback") {
			return http.ErrUseLastResponse // stop before the console's callback
		}
		return nil
	}
	resp, err := c.Get(s.url + "/signin/oidc/corp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp = oidctest.SignIn(t, c, resp.Request.URL, ada)
	resp.Body.Close()
	callback, err := resp.Location()
	if err != nil {
		t.Fatalf("provider answered %d without a redirect to the callback", resp.StatusCode)
	}
	for name, client := range map[string]*http.Client{"another browser": browser(t), "the same browser": c} {
		resp, err := client.Get(callback.String())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if name == "the same browser" && resp.StatusCode == http.StatusOK {
			// Its first use succeeds; a replay must not.
			resp, _ = client.Get(callback.String())
			b.Reset()
			b.ReadFrom(resp.Body)
			resp.Body.Close()
		}
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(b.String(), "start again") {
			t.Errorf("%s: callback = %d %q, want 403 saying to start again", name, resp.StatusCode, b.String())
		}
	}
}

// TestConfigRefusals: configurations that cannot work are refused with a
// sentence naming the provider and what to fix.
func TestConfigRefusals(t *testing.T) {
	box, _ := sealed.NewBox(bytes.Repeat([]byte{9}, sealed.KeySize))
	for _, tc := range []struct {
		p    oidcsignin.ProviderConfig
		want string
	}{
		{oidcsignin.ProviderConfig{Name: "Corp", Issuer: "https://id.example.com", ClientID: "x"}, "lowercase"},
		{oidcsignin.ProviderConfig{Name: "corp", Issuer: "http://id.example.com", ClientID: "x"}, "https"},
		{oidcsignin.ProviderConfig{Name: "corp", Issuer: "https://id.example.com"}, "client id"},
		{oidcsignin.ProviderConfig{Name: "corp", Issuer: "https://id.example.com", ClientID: "x", Domains: []string{"@example.com"}}, "email domain"},
	} {
		_, err := oidcsignin.New(oidcsignin.Config{PublicURL: "https://board.example.com", States: box, Logger: slog.New(slog.DiscardHandler),
			Providers: []oidcsignin.ProviderConfig{tc.p}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", tc.p, err, tc.want)
		}
	}
}

// TestUnreachableProvider: a provider that cannot be reached is a
// sentence for the person, not a failure of the front door's start.
func TestUnreachableProvider(t *testing.T) {
	box, _ := sealed.NewBox(bytes.Repeat([]byte{9}, sealed.KeySize))
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	rp, err := oidcsignin.New(oidcsignin.Config{PublicURL: "http://127.0.0.1:1", States: box, Logger: slog.New(slog.DiscardHandler),
		Providers: []oidcsignin.ProviderConfig{{Name: "corp", Title: "Corp SSO", Issuer: dead.URL, ClientID: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	err = rp.Start(httptest.NewRecorder(), httptest.NewRequest("GET", "/signin/oidc/corp", nil), "corp", "/")
	var e *oidcsignin.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "Corp SSO cannot be reached") {
		t.Errorf("Start with the provider down = %v, want a sentence saying it cannot be reached", err)
	}
}

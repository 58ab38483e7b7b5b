package tests

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// oauthPlain is an OAuth client written with net/http alone, as the
// refusal tests need one that can do everything wrong, and the owner's
// console session, which approves its requests.
type oauthPlain struct {
	t        *testing.T
	base     string // the issuer: the public URL
	endpoint string // the MCP endpoint, the resource
	owner    *browser
}

// newOAuthPlain signs the owner of h in on the console and returns a
// client of h's authorization server.
func newOAuthPlain(t *testing.T, h *nodetest.Harness) *oauthPlain {
	t.Helper()
	base := h.Sys.Config().PublicURL
	b := newBrowser(t, base)
	first := h.Sys.First()
	firstSignIn(t, b, signInLink(t, h, first.Tenant.Slug, first.Owner.Handle))
	return &oauthPlain{t: t, base: base, endpoint: h.Sys.Endpoint, owner: b}
}

// register registers a public client with redirect (RFC 7591) and
// returns its client_id.
func (o *oauthPlain) register(redirect string) string {
	o.t.Helper()
	return registerClient(o.t, o.base, redirect)
}

// registerClient registers a public client with redirect at the
// authorization server of base, as a client does with POST
// /oauth/register, and returns its client_id.
func registerClient(t *testing.T, base, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"client_name": "Taskwire test client", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
	})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	json.NewDecoder(resp.Body).Decode(&got)
	id, _ := got["client_id"].(string)
	if resp.StatusCode != http.StatusCreated || id == "" {
		t.Fatalf("POST /oauth/register = %d %v, want 201 with a client_id", resp.StatusCode, got)
	}
	return id
}

// request is an authorization request of client to redirect, with the
// PKCE challenge of verifier, for the whole MCP endpoint.
func (o *oauthPlain) request(client, redirect, verifier string) url.Values {
	sum := sha256.Sum256([]byte(verifier))
	return url.Values{
		"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st-" + rand.Text()},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {o.endpoint}, "scope": {"read comment write"},
	}
}

// authorize opens the authorization request q on the console as the
// owner: the consent page, or what the console answers instead.
func (o *oauthPlain) authorize(q url.Values) (code int, location, body string) {
	o.t.Helper()
	return o.owner.do("GET", "/oauth/authorize?"+q.Encode(), nil)
}

// approve has the owner approve the request q and returns the
// authorization response the browser is redirected with.
func (o *oauthPlain) approve(q url.Values) url.Values {
	o.t.Helper()
	code, loc, page := o.authorize(q)
	if code != http.StatusOK {
		o.t.Fatalf("GET /oauth/authorize = %d to %q, want 200 and the consent page:\n%s", code, loc, page)
	}
	code, loc, body := o.owner.submit(page, `<form id="consent"`, url.Values{"decision": {"approve"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, q.Get("redirect_uri")+"?") {
		o.t.Fatalf("approving = %d to %q, want 303 to %s:\n%s", code, loc, q.Get("redirect_uri"), body)
	}
	u, _ := url.Parse(loc)
	r := u.Query()
	if r.Get("state") != q.Get("state") || r.Get("iss") != o.base || r.Get("code") == "" {
		o.t.Fatalf("the authorization response = %v, want a code, state %s and iss %s", r, q.Get("state"), o.base)
	}
	return r
}

// code is a fresh authorization code of client for redirect and verifier.
func (o *oauthPlain) code(client, redirect, verifier string) string {
	o.t.Helper()
	return o.approve(o.request(client, redirect, verifier)).Get("code")
}

// token posts form to the token endpoint and returns the status and the
// JSON answer.
func (o *oauthPlain) token(form url.Values) (int, map[string]any) {
	o.t.Helper()
	resp, err := http.PostForm(o.base+"/oauth/token", form)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		o.t.Fatalf("POST /oauth/token = %d %q, want JSON", resp.StatusCode, raw)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		o.t.Errorf("POST /oauth/token Cache-Control = %q, want no-store", cc)
	}
	return resp.StatusCode, got
}

// exchange trades code for tokens.
func (o *oauthPlain) exchange(client, redirect, code, verifier string) (int, map[string]any) {
	o.t.Helper()
	return o.token(url.Values{
		"grant_type": {"authorization_code"}, "client_id": {client}, "redirect_uri": {redirect},
		"code": {code}, "code_verifier": {verifier}, "resource": {o.endpoint},
	})
}

// refresh trades a refresh token for new tokens.
func (o *oauthPlain) refresh(client, refresh string) (int, map[string]any) {
	o.t.Helper()
	return o.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}})
}

// tokens is a code exchanged successfully: the access and refresh token.
func (o *oauthPlain) tokens(client, redirect string) (access, refresh string) {
	o.t.Helper()
	v := verifier()
	status, got := o.exchange(client, redirect, o.code(client, redirect, v), v)
	access, _ = got["access_token"].(string)
	refresh, _ = got["refresh_token"].(string)
	if status != http.StatusOK || access == "" || refresh == "" || got["token_type"] != "Bearer" {
		o.t.Fatalf("exchanging a good code = %d %v, want 200 with a Bearer access token and a refresh token", status, got)
	}
	return access, refresh
}

// verifier is a fresh PKCE code verifier (RFC 7636: 43 to 128 characters).
func verifier() string { return rand.Text() + rand.Text() }

// oauthError checks that an answer is the OAuth error want.
func oauthError(t *testing.T, what string, status int, got map[string]any, want string) {
	t.Helper()
	if status != http.StatusBadRequest || got["error"] != want || got["error_description"] == "" {
		t.Errorf("%s = %d %v, want 400 %s with a description", what, status, got, want)
	}
}

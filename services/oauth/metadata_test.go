package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/services/oauth"
)

// docServer serves a Client ID Metadata Document at /client.json on
// loopback; doc changes what it serves (its client_id is the URL unless
// doc sets one).
type docServer struct {
	*httptest.Server
	fetches atomic.Int32
	doc     func(url string) map[string]any
	header  http.Header
}

func newDocServer(t *testing.T, tls bool, doc func(url string) map[string]any) *docServer {
	t.Helper()
	d := &docServer{doc: doc, header: http.Header{"Content-Type": {"application/json"}}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.fetches.Add(1)
		for k, v := range d.header {
			w.Header()[k] = v
		}
		_ = json.NewEncoder(w).Encode(d.doc(d.URL + r.URL.Path))
	})
	if tls {
		d.Server = httptest.NewTLSServer(h)
	} else {
		d.Server = httptest.NewServer(h)
	}
	t.Cleanup(d.Close)
	return d
}

// claudeCode is the document of a CLI client with loopback redirects.
func claudeCode(url string) map[string]any {
	return map[string]any{"client_id": url, "client_name": "Claude Code", "redirect_uris": []string{"http://127.0.0.1/callback", callback},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}}
}

var loopback = oauth.Clients{MetadataLoopback: true}

// TestMetadataDocumentFlow: a client known only by its document's URL
// connects, and its document is cached as its headers say, within
// bounds.
func TestMetadataDocumentFlow(t *testing.T) {
	runWith(t, oauth.Limits{}, loopback, func(t *testing.T, e *env) {
		d := newDocServer(t, false, claudeCode)
		d.header.Set("Cache-Control", "max-age=60") // raised to 5 minutes
		id := d.URL + "/client.json"
		p := newPKCE("m")
		resp := e.check(t, authReq(id, p))
		if resp.GetError() != nil || resp.GetConsent().GetClientName() != "Claude Code" || resp.GetConsent().GetClientKind() != "metadata" {
			t.Fatalf("CheckAuthorization = %v, want consent for Claude Code, a metadata client", resp)
		}
		tok := e.exchange(t, id, e.approve(t, "alice", "acme", authReq(id, p)), p)
		if tok.GetError() != nil {
			t.Fatalf("Token = %v, want tokens", tok.GetError())
		}
		if tok := e.token(t, refreshReq(id, tok.GetRefreshToken())); tok.GetError() != nil {
			t.Fatalf("refresh = %v, want tokens", tok.GetError())
		}
		if n := d.fetches.Load(); n != 1 {
			t.Errorf("document fetched %d times within its cache lifetime, want 1", n)
		}
		e.clock.Add(4 * time.Minute)
		e.check(t, authReq(id, p))
		if n := d.fetches.Load(); n != 1 {
			t.Errorf("document fetched %d times within 5 minutes, want 1 (the minimum cache)", n)
		}
		e.clock.Add(2 * time.Minute)
		d.doc = func(url string) map[string]any { m := claudeCode(url); m["client_name"] = "Claude Code 2"; return m }
		if resp := e.check(t, authReq(id, p)); resp.GetConsent().GetClientName() != "Claude Code 2" || d.fetches.Load() != 2 {
			t.Errorf("after the cache: name %q, %d fetches; want the new name, fetched again", resp.GetConsent().GetClientName(), d.fetches.Load())
		}
	})
}

// TestMetadataDocumentRefusals: a document that is not its client's, or
// says what a public document must not, is refused as invalid_client and
// never redirected to.
func TestMetadataDocumentRefusals(t *testing.T) {
	runWith(t, oauth.Limits{}, loopback, func(t *testing.T, e *env) {
		tests := []struct {
			name string
			doc  func(url string) map[string]any
			say  string
		}{
			{"another client_id", func(url string) map[string]any {
				m := claudeCode(url)
				m["client_id"] = "https://evil.example/client.json"
				return m
			}, "is not its own URL"},
			{"a secret", func(url string) map[string]any { m := claudeCode(url); m["client_secret"] = "s"; return m }, "client_secret"},
			{"private_key_jwt", func(url string) map[string]any {
				m := claudeCode(url)
				m["token_endpoint_auth_method"] = "private_key_jwt"
				return m
			}, "private_key_jwt"},
			{"no redirect_uris", func(url string) map[string]any { m := claudeCode(url); delete(m, "redirect_uris"); return m }, "redirect_uris"},
			{"too large", func(url string) map[string]any {
				m := claudeCode(url)
				m["client_name"] = strings.Repeat("x", 6000)
				return m
			}, "larger than 5 KB"},
		}
		for _, tt := range tests {
			d := newDocServer(t, false, tt.doc)
			r := authReq(d.URL+"/client.json", newPKCE("d"))
			resp := e.check(t, r)
			wantErrorSaying(t, tt.name, resp.GetError(), "invalid_client", tt.say)
			if resp.GetRedirect() {
				t.Errorf("%s: redirect = true, want the error shown, not sent", tt.name)
			}
		}
		d := newDocServer(t, false, claudeCode)
		d.header.Set("Content-Type", "text/html")
		wantErrorSaying(t, "HTML", e.check(t, authReq(d.URL+"/client.json", newPKCE("d"))).GetError(), "invalid_client", "not application/json")
		moved := httptest.NewServer(http.RedirectHandler(d.URL+"/client.json", http.StatusFound))
		defer moved.Close()
		wantErrorSaying(t, "a redirect", e.check(t, authReq(moved.URL+"/client.json", newPKCE("d"))).GetError(), "invalid_client", "HTTP 302")
		wantErrorSaying(t, "no path", e.check(t, authReq(d.URL, newPKCE("d"))).GetError(), "invalid_client", "no path")
	})
}

// TestMetadataDocumentAddresses: documents are fetched from public
// addresses only, as resolved: loopback only when tests open the guard,
// never private or link-local ones (a cloud's metadata service).
func TestMetadataDocumentAddresses(t *testing.T) {
	runWith(t, oauth.Limits{}, loopback, func(t *testing.T, e *env) {
		for _, id := range []string{"https://10.0.0.1/client.json", "https://169.254.169.254/latest/meta-data", "https://[fd00::1]/client.json", "https://100.64.0.1/client.json"} {
			resp := e.check(t, authReq(id, newPKCE("p")))
			wantErrorSaying(t, id, resp.GetError(), "invalid_client", "not on a public address")
		}
	})
}

// TestMetadataDocumentLoopback: outside tests, a document on loopback is
// refused, however its host is spelt, and is never fetched.
func TestMetadataDocumentLoopback(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		d := newDocServer(t, true, claudeCode)
		local := strings.Replace(d.URL, "127.0.0.1", "localhost", 1)
		for _, id := range []string{d.URL + "/client.json", local + "/client.json"} {
			wantErrorSaying(t, id, e.check(t, authReq(id, newPKCE("p"))).GetError(), "invalid_client", "not on a public address")
		}
		plain := newDocServer(t, false, claudeCode)
		wantErrorSaying(t, "http", e.check(t, authReq(plain.URL+"/client.json", newPKCE("p"))).GetError(), "invalid_client", "not https")
		if d.fetches.Load()+plain.fetches.Load() != 0 {
			t.Errorf("the loopback servers were reached %d times, want never", d.fetches.Load()+plain.fetches.Load())
		}
	})
}

// TestOnlyConfigured: with OnlyConfigured, registration and metadata
// documents are refused and configured clients work, a confidential one
// with its secret only.
func TestOnlyConfigured(t *testing.T) {
	clients := oauth.Clients{OnlyConfigured: true, MetadataLoopback: true, Configured: []oauth.ConfiguredClient{
		{ClientID: "chatgpt", Name: "ChatGPT", RedirectURIs: []string{callback}, SecretSHA256: sha256Hex("s3cret")},
		{ClientID: "inspector", Name: "MCP Inspector", RedirectURIs: []string{"http://localhost:6274/oauth/callback"}},
	}}
	runWith(t, oauth.Limits{}, clients, func(t *testing.T, e *env) {
		resp := e.registerResp(t, map[string]any{"redirect_uris": []string{callback}}, "192.0.2.1")
		wantError(t, "registration", resp.GetError(), "access_denied")
		d := newDocServer(t, false, claudeCode)
		wantErrorSaying(t, "metadata document", e.check(t, authReq(d.URL+"/client.json", newPKCE("o"))).GetError(), "invalid_client", "only the clients its operator configured")

		p := newPKCE("o")
		if resp := e.check(t, authReq("chatgpt", p)); resp.GetConsent().GetClientKind() != "configured" || resp.GetConsent().GetClientName() != "ChatGPT" {
			t.Errorf("consent = %v, want ChatGPT, configured", resp)
		}
		code := e.approve(t, "alice", "acme", authReq("chatgpt", p))
		req := &taskwirev1.TokenRequest{GrantType: "authorization_code", ClientId: "chatgpt", Code: code,
			RedirectUri: callback, CodeVerifier: p.verifier, ClientSecret: "wrong", AuthMethod: "client_secret_post"}
		wantError(t, "wrong secret", e.token(t, req).GetError(), "invalid_client")
		req.ClientSecret = ""
		wantError(t, "no secret", e.token(t, req).GetError(), "invalid_client")
		req.ClientSecret, req.AuthMethod = "s3cret", "client_secret_basic"
		if resp := e.token(t, req); resp.GetError() != nil {
			t.Errorf("Token with the secret = %v, want tokens", resp.GetError())
		}
		r := authReq("inspector", p)
		r.RedirectUri = "http://localhost:6274/oauth/callback"
		if resp := e.check(t, r); resp.GetError() != nil || !resp.GetConsent().GetLocalOnly() {
			t.Errorf("public configured client: %v, want a consent marked local only", resp)
		}
		_, err := e.svc.Revoke(context.Background(), &taskwirev1.RevokeRequest{Token: "x", ClientId: "chatgpt", ClientSecret: "wrong"})
		if err != nil {
			t.Fatal(err)
		}
	})
}

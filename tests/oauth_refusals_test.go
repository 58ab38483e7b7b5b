package tests

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/oauth"
)

// refusalCodeTTL is how long codes live on the refusal tests' second
// node, so that one expires while the test waits.
const refusalCodeTTL = 2 * time.Second

// TestOAuthRefusals: what the authorization server refuses, over HTTP as
// any client (or attacker) speaks it, each with the error a client can
// act on; the refusals that would send the browser somewhere untrusted
// show a page instead of redirecting. A code or refresh token used twice
// revokes its grant, whose access tokens then stop working. One thing it
// allows that looks like a refusal: a loopback redirect on another port
// (RFC 8252).
func TestOAuthRefusals(t *testing.T) {
	h := nodetest.StartWith(t, nodetest.Setups()[0], oauthTestConfig)
	o := newOAuthPlain(t, h)
	cb := newCallback(t)
	client := o.register(cb.URL)

	t.Run("wrong PKCE verifier", func(t *testing.T) {
		code := o.code(client, cb.URL, verifier())
		status, got := o.exchange(client, cb.URL, code, verifier())
		oauthError(t, "a code with another verifier", status, got, "invalid_grant")
	})
	t.Run("reused code", func(t *testing.T) {
		v := verifier()
		code := o.code(client, cb.URL, v)
		status, got := o.exchange(client, cb.URL, code, v)
		access, _ := got["access_token"].(string)
		if status != http.StatusOK || access == "" {
			t.Fatalf("the first exchange = %d %v, want tokens", status, got)
		}
		if s := nodetest.ToolsListStatus(t, o.endpoint, "", access); s != http.StatusOK {
			t.Fatalf("tools/list with the access token = %d, want 200", s)
		}
		status, got = o.exchange(client, cb.URL, code, v)
		oauthError(t, "the same code again", status, got, "invalid_grant")
		// A code used twice was stolen: the grant it made is revoked.
		poll.Until(t, pageWait, "the access token of a reused code to be refused", func() bool {
			return nodetest.ToolsListStatus(t, o.endpoint, "", access) == http.StatusUnauthorized
		})
	})
	t.Run("redirect URI not registered", func(t *testing.T) {
		for _, evil := range []string{"https://evil.example/callback", cb.URL + "/../../evil", "http://127.0.0.1@evil.example/callback"} {
			refusedOnPage(t, o, o.request(client, evil, verifier()), "redirect_uri "+evil, "is not one")
		}
	})
	t.Run("open redirect", func(t *testing.T) {
		// An unknown client names the attacker's page: nothing vouches
		// for it, so the browser must not go there.
		q := o.request("made-up-client", "https://evil.example/phish", verifier())
		refusedOnPage(t, o, q, "an unknown client_id", "No client")
	})
	t.Run("resource of another server", func(t *testing.T) {
		q := o.request(client, cb.URL, verifier())
		q.Set("resource", "https://other.example/api/mcp")
		code, loc, body := o.authorize(q)
		u, _ := url.Parse(loc)
		if code != http.StatusSeeOther || !strings.HasPrefix(loc, cb.URL+"?") || u.Query().Get("error") != "invalid_target" ||
			u.Query().Get("state") != q.Get("state") || u.Query().Get("iss") != o.base {
			t.Errorf("a resource of another server = %d to %q, want 303 to the client with error=invalid_target, its state and iss:\n%s", code, loc, body)
		}
	})
	t.Run("metadata document of another client_id", func(t *testing.T) {
		id := lyingDocument(t, cb.URL)
		refusedOnPage(t, o, o.request(id, cb.URL, verifier()), "a metadata document whose client_id is not its URL", "is not its own URL")
	})
	t.Run("reused refresh token", func(t *testing.T) {
		access, refresh := o.tokens(client, cb.URL)
		status, got := o.refresh(client, refresh)
		next, _ := got["refresh_token"].(string)
		nextAccess, _ := got["access_token"].(string)
		if status != http.StatusOK || next == "" || next == refresh || nextAccess == "" {
			t.Fatalf("refreshing = %d %v, want a new access token and a new refresh token", status, got)
		}
		status, got = o.refresh(client, refresh)
		oauthError(t, "the old refresh token again", status, got, "invalid_grant")
		// The grant is revoked: the new refresh token and every access
		// token of it stop working too.
		status, got = o.refresh(client, next)
		oauthError(t, "the new refresh token after a reuse", status, got, "invalid_grant")
		for _, tok := range []string{access, nextAccess} {
			poll.Until(t, pageWait, "the access tokens of a grant revoked by a reused refresh token to be refused", func() bool {
				return nodetest.ToolsListStatus(t, o.endpoint, "", tok) == http.StatusUnauthorized
			})
		}
	})
	t.Run("code of another client or redirect", func(t *testing.T) {
		other := o.register(cb.URL)
		v := verifier()
		code := o.code(client, cb.URL, v)
		status, got := o.exchange(other, cb.URL, code, v)
		oauthError(t, "another client's code", status, got, "invalid_grant")
		code = o.code(client, cb.URL, v)
		status, got = o.exchange(client, cb.URL+"?other", code, v)
		oauthError(t, "a code with another redirect_uri than authorized", status, got, "invalid_grant")
	})
	t.Run("plain PKCE", func(t *testing.T) {
		for _, method := range []string{"plain", ""} {
			q := o.request(client, cb.URL, verifier())
			q.Set("code_challenge_method", method)
			if method == "" {
				q.Del("code_challenge")
			}
			code, loc, body := o.authorize(q)
			u, _ := url.Parse(loc)
			if code != http.StatusSeeOther || !strings.HasPrefix(loc, cb.URL+"?") || u.Query().Get("error") != "invalid_request" {
				t.Errorf("code_challenge_method %q = %d to %q, want 303 to the client with error=invalid_request:\n%s", method, code, loc, body)
			}
		}
	})
	t.Run("refresh by another client or wider", func(t *testing.T) {
		other := o.register(cb.URL)
		_, refresh := o.tokens(client, cb.URL)
		status, got := o.refresh(other, refresh)
		oauthError(t, "another client's refresh token", status, got, "invalid_grant")
		_, refresh = o.tokens(client, cb.URL)
		status, got = o.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}, "scope": {"read admin"}})
		oauthError(t, "a refresh asking for a scope never granted", status, got, "invalid_scope")
	})
	t.Run("registration", func(t *testing.T) {
		for _, redirect := range []string{"https://app.example/cb#frag", "javascript:alert(1)", "http://app.example/cb"} {
			body := `{"client_name":"Bad","redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
			resp, err := http.Post(o.base+"/oauth/register", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || got["error"] != "invalid_redirect_uri" {
				t.Errorf("registering redirect_uri %s = %d %v, want 400 invalid_redirect_uri", redirect, resp.StatusCode, got)
			}
		}
	})
	t.Run("loopback redirect on another port", func(t *testing.T) {
		// RFC 8252 §7.3: a native client's loopback port changes from run
		// to run; the path must still match.
		moved := strings.Replace(cb.URL, strings.TrimPrefix(cb.srv.URL, "http://127.0.0.1"), ":1", 1)
		o.approve(o.request(client, moved, verifier()))
	})

	// A node as deployed: metadata documents only from public addresses,
	// and codes that live two seconds.
	t.Run("guarded", func(t *testing.T) {
		g := nodetest.StartWith(t, nodetest.Setups()[0], func(c *node.SystemConfig) {
			c.OAuth = node.OAuthConfig{Limits: oauth.Limits{CodeTTL: refusalCodeTTL}}
		})
		o := newOAuthPlain(t, g)
		t.Run("metadata document on a private address", func(t *testing.T) {
			id := metadataDocument(t, "On loopback", cb.URL)
			refusedOnPage(t, o, o.request(id, cb.URL, verifier()), "a metadata document on loopback", "not on a public address")
			for _, id := range []string{"https://10.0.0.1/client.json", "https://169.254.169.254/latest/client.json", "https://[::1]/client.json"} {
				refusedOnPage(t, o, o.request(id, cb.URL, verifier()), "a metadata document at "+id, "not on a public address")
			}
		})
		t.Run("expired code", func(t *testing.T) {
			client := o.register(cb.URL)
			v := verifier()
			code := o.code(client, cb.URL, v)
			<-time.After(refusalCodeTTL + time.Second)
			status, got := o.exchange(client, cb.URL, code, v)
			oauthError(t, "a code after its lifetime", status, got, "invalid_grant")
		})
	})
}

// refusedOnPage checks that the console refuses the authorization request
// q on a page of its own saying why (html-escaped), and sends the
// browser nowhere.
func refusedOnPage(t *testing.T, o *oauthPlain, q url.Values, what, why string) {
	t.Helper()
	code, loc, body := o.authorize(q)
	if code != http.StatusBadRequest || loc != "" || strings.Contains(body, `id="consent"`) || !strings.Contains(body, why) {
		t.Errorf("an authorization request with %s = %d to %q, want 400 with a page saying %q and no redirect:\n%s", what, code, loc, why, body)
	}
}

// lyingDocument serves a Client ID Metadata Document on loopback whose
// client_id is not the URL it is served at, and returns that URL.
func lyingDocument(t *testing.T, redirect string) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"client_id": "https://trusted.example/client.json", "client_name": "Trusted", "redirect_uris": []string{redirect},
			"token_endpoint_auth_method": "none",
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/client.json"
}

package oauth_test

import (
	"context"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// check asks CheckAuthorization about r as alice.
func (e *env) check(t *testing.T, r *taskwirev1.AuthorizationRequest) *taskwirev1.CheckAuthorizationResponse {
	t.Helper()
	resp, err := e.svc.CheckAuthorization(context.Background(), &taskwirev1.CheckAuthorizationRequest{Cookie: e.cookies["alice"], Request: r})
	if err != nil {
		t.Fatalf("CheckAuthorization = %v", err)
	}
	return resp
}

// TestAuthorizationRefusals: each bad authorization request is refused
// with its code, and sent back to the client only when the client and
// redirect URI are trusted.
func TestAuthorizationRefusals(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		client := e.publicClient(t)
		p := newPKCE("r")
		tests := []struct {
			name     string
			change   func(r *taskwirev1.AuthorizationRequest)
			code     string
			redirect bool
		}{
			{"open redirect", func(r *taskwirev1.AuthorizationRequest) { r.RedirectUri = "https://evil.example/cb" }, "invalid_request", false},
			{"redirect URI on another path", func(r *taskwirev1.AuthorizationRequest) { r.RedirectUri = callback + "/../evil" }, "invalid_request", false},
			{"unknown client", func(r *taskwirev1.AuthorizationRequest) { r.ClientId = "twc_nobody" }, "invalid_client", false},
			{"no client", func(r *taskwirev1.AuthorizationRequest) { r.ClientId = "" }, "invalid_request", false},
			{"resource of another server", func(r *taskwirev1.AuthorizationRequest) { r.Resource = "https://other.example/mcp" }, "invalid_target", true},
			{"no resource", func(r *taskwirev1.AuthorizationRequest) { r.Resource = "" }, "invalid_target", true},
			{"plain PKCE", func(r *taskwirev1.AuthorizationRequest) {
				r.CodeChallengeMethod = "plain"
				r.CodeChallenge = p.verifier
			}, "invalid_request", true},
			{"no PKCE", func(r *taskwirev1.AuthorizationRequest) { r.CodeChallenge, r.CodeChallengeMethod = "", "" }, "invalid_request", true},
			{"token response type", func(r *taskwirev1.AuthorizationRequest) { r.ResponseType = "token" }, "unsupported_response_type", true},
			{"unknown scope", func(r *taskwirev1.AuthorizationRequest) { r.Scope = "read admin" }, "invalid_scope", true},
		}
		for _, tt := range tests {
			r := authReq(client, p)
			tt.change(r)
			resp := e.check(t, r)
			wantError(t, tt.name, resp.GetError(), tt.code)
			if resp.GetRedirect() != tt.redirect || (tt.redirect && resp.GetRedirectUri() != callback) {
				t.Errorf("%s: redirect = %t to %q, want %t", tt.name, resp.GetRedirect(), resp.GetRedirectUri(), tt.redirect)
			}
			ap, err := e.svc.Approve(context.Background(), &taskwirev1.ApproveRequest{Cookie: e.cookies["alice"], Request: r, Tenant: "acme"})
			if err != nil || ap.GetCode() != "" || ap.GetError().GetCode() != tt.code || ap.GetRedirect() != tt.redirect {
				t.Errorf("%s: Approve = %v, %v; want %s, redirect %t, no code", tt.name, ap, err, tt.code, tt.redirect)
			}
		}
		r := authReq(client, p)
		r.Resource = testAudience + "/"
		if resp := e.check(t, r); resp.GetError() != nil {
			t.Errorf("resource with a trailing slash: %v, want it accepted", resp.GetError())
		}
	})
}

// TestNotSignedIn: the consent page needs a live session; the console
// sends the person to sign in on Unauthenticated.
func TestNotSignedIn(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		r := authReq(e.publicClient(t), newPKCE("n"))
		_, err := e.svc.CheckAuthorization(context.Background(), &taskwirev1.CheckAuthorizationRequest{Cookie: "sid.secret", Request: r})
		if kindOf(err) != domainerr.Unauthenticated {
			t.Errorf("CheckAuthorization(bad cookie) = %v, want Unauthenticated", err)
		}
		_, err = e.svc.Approve(context.Background(), &taskwirev1.ApproveRequest{Cookie: e.cookies["alice"], Request: r, Tenant: "initech"})
		if kindOf(err) != domainerr.PermissionDenied {
			t.Errorf("Approve(a tenant of others) = %v, want PermissionDenied", err)
		}
	})
}

// TestLoopbackRedirectAnyPort: a loopback redirect matches on any port
// (RFC 8252 §7.3), but not on another path or host.
func TestLoopbackRedirectAnyPort(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		doc := e.register(t, map[string]any{"client_name": "Cursor", "redirect_uris": []string{"http://127.0.0.1/callback"}, "token_endpoint_auth_method": "none"})
		client := doc["client_id"].(string)
		for uri, ok := range map[string]bool{
			"http://127.0.0.1:53682/callback":  true,
			"http://127.0.0.1/callback":        true,
			"http://127.0.0.1:53682/other":     false,
			"http://localhost:53682/callback":  false,
			"https://127.0.0.1:53682/callback": false,
		} {
			r := authReq(client, newPKCE("l"))
			r.RedirectUri = uri
			resp := e.check(t, r)
			if (resp.GetError() == nil) != ok {
				t.Errorf("redirect %s: error %v, want accepted %t", uri, resp.GetError(), ok)
			}
			if ok && !resp.GetConsent().GetLocalOnly() {
				t.Errorf("redirect %s: consent not marked local only", uri)
			}
		}
	})
}

// TestCodeRefusals: a code is redeemed once, in time, by its client, with
// its verifier and redirect URI.
func TestCodeRefusals(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		client := e.publicClient(t)
		other := e.publicClient(t)
		p := newPKCE("c")
		code := e.approve(t, "alice", "acme", authReq(client, p))
		bad := func(change func(r *taskwirev1.TokenRequest)) *taskwirev1.OAuthError {
			r := &taskwirev1.TokenRequest{GrantType: "authorization_code", ClientId: client, Code: code,
				RedirectUri: callback, CodeVerifier: p.verifier, Resource: testAudience}
			change(r)
			return e.token(t, r).GetError()
		}
		wantError(t, "wrong verifier", bad(func(r *taskwirev1.TokenRequest) { r.CodeVerifier = newPKCE("x").verifier }), "invalid_grant")
		wantError(t, "short verifier", bad(func(r *taskwirev1.TokenRequest) { r.CodeVerifier = "short" }), "invalid_request")
		wantError(t, "no verifier", bad(func(r *taskwirev1.TokenRequest) { r.CodeVerifier = "" }), "invalid_request")
		wantError(t, "other redirect", bad(func(r *taskwirev1.TokenRequest) { r.RedirectUri = "https://client.example/other" }), "invalid_grant")
		wantError(t, "other client", bad(func(r *taskwirev1.TokenRequest) { r.ClientId = other }), "invalid_grant")
		wantError(t, "other resource", bad(func(r *taskwirev1.TokenRequest) { r.Resource = "https://other.example/mcp" }), "invalid_target")
		wantError(t, "unknown code", bad(func(r *taskwirev1.TokenRequest) { r.Code = "nope" }), "invalid_grant")
		wantError(t, "password grant", bad(func(r *taskwirev1.TokenRequest) { r.GrantType = "password" }), "unsupported_grant_type")
		wantError(t, "unknown client", bad(func(r *taskwirev1.TokenRequest) { r.ClientId = "twc_nobody" }), "invalid_client")

		// None of the refusals used the code up.
		first := e.exchange(t, client, code, p)
		if first.GetError() != nil {
			t.Fatalf("Token = %v, want tokens", first.GetError())
		}
		wantErrorSaying(t, "reused code", e.exchange(t, client, code, p).GetError(), "invalid_grant", "used already")
		if !e.revoked(t, first.GetAccessToken()) {
			t.Errorf("the access token of a reused code's grant is live, want revoked")
		}
		wantError(t, "refresh after a reused code", e.token(t, refreshReq(client, first.GetRefreshToken())).GetError(), "invalid_grant")

		expiring := e.approve(t, "alice", "acme", authReq(client, p))
		e.clock.Add(5*time.Minute + time.Second)
		wantErrorSaying(t, "expired code", e.exchange(t, client, expiring, p).GetError(), "invalid_grant", "expired")
	})
}

// TestRefreshRefusals: a refresh token is used once; used again, its
// grant is revoked with every access token of it. A refresh may narrow
// the scopes, never widen them.
func TestRefreshRefusals(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		client := e.publicClient(t)
		p := newPKCE("s")
		r := authReq(client, p)
		r.Scope = "read comment"
		first := e.exchange(t, client, e.approve(t, "alice", "acme", r), p)
		narrow := refreshReq(client, first.GetRefreshToken())
		narrow.Scope = "read"
		second := e.token(t, narrow)
		if second.GetError() != nil || second.GetScope() != "read" {
			t.Fatalf("narrowing refresh = %v, want read", second)
		}
		wide := refreshReq(client, second.GetRefreshToken())
		wide.Scope = "write"
		wantError(t, "widening refresh", e.token(t, wide).GetError(), "invalid_scope")
		other := e.publicClient(t)
		wantError(t, "another client's refresh token", e.token(t, refreshReq(other, second.GetRefreshToken())).GetError(), "invalid_grant")

		wantErrorSaying(t, "reused refresh token", e.token(t, refreshReq(client, first.GetRefreshToken())).GetError(), "invalid_grant", "used already")
		for _, raw := range []string{first.GetAccessToken(), second.GetAccessToken()} {
			if !e.revoked(t, raw) {
				t.Errorf("an access token of the grant whose refresh token was reused is live, want revoked")
			}
		}
		resp := e.token(t, refreshReq(client, second.GetRefreshToken()))
		wantErrorSaying(t, "refresh of a revoked grant", resp.GetError(), "invalid_grant", "a refresh token was used twice")
		grants, err := e.svc.ListGrants(context.Background(), &taskwirev1.ListGrantsRequest{Cookie: e.cookies["alice"]})
		if err != nil || len(grants.GetGrants()) != 0 {
			t.Errorf("ListGrants = %v, %v; want none live", grants, err)
		}
	})
}

// TestRefreshLifetimes: a refresh token unused for RefreshIdle ends, and
// none outlives its grant.
func TestRefreshLifetimes(t *testing.T) {
	limits := oauthLimits(time.Hour, 10*24*time.Hour, 15*24*time.Hour)
	runWith(t, limits, noClients(), func(t *testing.T, e *env) {
		client, first := e.connect(t)
		idleClient, idle := e.connect(t)
		e.clock.Add(9 * 24 * time.Hour)
		second := e.token(t, refreshReq(client, first.GetRefreshToken()))
		if second.GetError() != nil {
			t.Fatalf("refresh after 9 days = %v, want tokens", second.GetError())
		}
		e.clock.Add(24*time.Hour + time.Second)
		wantErrorSaying(t, "refresh unused too long", e.token(t, refreshReq(idleClient, idle.GetRefreshToken())).GetError(), "invalid_grant", "expired")
		e.clock.Add(6 * 24 * time.Hour) // past the grant's 15 days
		wantErrorSaying(t, "refresh past the grant's lifetime", e.token(t, refreshReq(client, second.GetRefreshToken())).GetError(), "invalid_grant", "lifetime")
	})
}

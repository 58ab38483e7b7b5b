package oauth_test

import (
	"fmt"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// TestRegistrationRefusals: metadata a client cannot work with is
// refused with the RFC 7591 code and a sentence; what clients in the
// wild send is accepted.
func TestRegistrationRefusals(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		tests := []struct {
			name string
			md   map[string]any
			code string // "" accepted
		}{
			{"no redirect_uris", map[string]any{"client_name": "x"}, "invalid_client_metadata"},
			{"plain http", map[string]any{"redirect_uris": []string{"http://client.example/cb"}}, "invalid_redirect_uri"},
			{"a fragment", map[string]any{"redirect_uris": []string{"https://client.example/cb#x"}}, "invalid_redirect_uri"},
			{"javascript", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}, "application_type": "native"}, "invalid_redirect_uri"},
			{"custom scheme for the web", map[string]any{"redirect_uris": []string{"cursor://anysphere.cursor/oauth"}, "application_type": "web"}, "invalid_redirect_uri"},
			{"implicit grant", map[string]any{"redirect_uris": []string{callback}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
			{"token response", map[string]any{"redirect_uris": []string{callback}, "response_types": []string{"token"}}, "invalid_client_metadata"},
			{"private_key_jwt", map[string]any{"redirect_uris": []string{callback}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
			{"chosen client_id", map[string]any{"redirect_uris": []string{callback}, "client_id": "mine"}, "invalid_client_metadata"},
			{"Claude.ai", map[string]any{"client_name": "Claude", "redirect_uris": []string{"https://claude.ai/api/mcp/auth_callback"},
				"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"}, ""},
			{"loopback without application_type", map[string]any{"redirect_uris": []string{"http://127.0.0.1:33418/"}, "token_endpoint_auth_method": "none"}, ""},
			{"custom scheme without application_type", map[string]any{"redirect_uris": []string{"cursor://anysphere.cursor-retrieval/oauth/user-taskwire/callback"}}, ""},
		}
		for _, tt := range tests {
			resp := e.registerResp(t, tt.md, "198.51.100.7")
			if tt.code == "" {
				if resp.GetError() != nil {
					t.Errorf("%s: %v, want registered", tt.name, resp.GetError())
				}
				continue
			}
			wantError(t, tt.name, resp.GetError(), tt.code)
		}
	})
}

// TestRegistrationRate: an address registers at most 20 clients an hour,
// counted in the database; others are not held back.
func TestRegistrationRate(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		md := map[string]any{"redirect_uris": []string{callback}, "token_endpoint_auth_method": "none"}
		for i := range 20 {
			if resp := e.registerResp(t, md, "203.0.113.9"); resp.GetError() != nil {
				t.Fatalf("registration %d = %v, want a client", i+1, resp.GetError())
			}
		}
		wantErrorSaying(t, "21st registration", e.registerResp(t, md, "203.0.113.9").GetError(), "temporarily_unavailable", "within the last hour")
		if resp := e.registerResp(t, md, "203.0.113.10"); resp.GetError() != nil {
			t.Errorf("another address: %v, want a client", resp.GetError())
		}
		e.clock.Add(time.Hour + time.Second)
		if resp := e.registerResp(t, md, "203.0.113.9"); resp.GetError() != nil {
			t.Errorf("an hour later: %v, want a client", resp.GetError())
		}
	})
}

// TestUnusedRegistrationExpires: a registration no grant used ends after
// a day; one a grant used stays. Codes are deleted a day past their
// expiry, live refresh tokens kept.
func TestUnusedRegistrationExpires(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		unused := e.publicClient(t)
		used, _ := e.connect(t)
		e.clock.Add(25 * time.Hour)
		e.publicClient(t) // sweeps
		wantError(t, "unused registration", e.check(t, authReq(unused, newPKCE("u"))).GetError(), "invalid_client")
		if n, _ := e.client.OAuthClient.Query().Count(systemCtx()); n != 2 {
			t.Errorf("clients after the sweep = %d, want 2", n)
		}
		codes, _ := e.client.OAuthCode.Query().Count(systemCtx())
		refresh, _ := e.client.OAuthRefreshToken.Query().Count(systemCtx())
		if codes != 0 || refresh != 1 {
			t.Errorf("after the sweep: %d codes, %d refresh tokens; want the code a day past its expiry gone, the live refresh token kept", codes, refresh)
		}
		e.signIn(t, "alice") // her session idled out
		if resp := e.check(t, authReq(used, newPKCE("u"))); resp.GetError() != nil {
			t.Errorf("used registration: %v, want it kept", resp.GetError())
		}
	})
}

// TestConfidentialRegistration: a client registered with a secret
// method gets a secret once, and must send it.
func TestConfidentialRegistration(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		doc := e.register(t, map[string]any{"client_name": "Server app", "redirect_uris": []string{callback}, "token_endpoint_auth_method": "client_secret_post"})
		client, secret := doc["client_id"].(string), doc["client_secret"].(string)
		if secret == "" || doc["client_secret_expires_at"] != float64(0) {
			t.Fatalf("registration = %v, want a secret that does not expire", doc)
		}
		// It named no grant types; it gets refresh tokens all the same, and
		// its registration says so.
		if got := fmt.Sprint(doc["grant_types"]); got != "[authorization_code refresh_token]" {
			t.Errorf("registration grant_types = %s, want [authorization_code refresh_token]", got)
		}
		p := newPKCE("k")
		code := e.approve(t, "alice", "acme", authReq(client, p))
		req := &taskwirev1.TokenRequest{GrantType: "authorization_code", ClientId: client, Code: code,
			RedirectUri: callback, CodeVerifier: p.verifier, AuthMethod: "none"}
		wantError(t, "no secret", e.token(t, req).GetError(), "invalid_client")
		req.ClientSecret, req.AuthMethod = secret, "client_secret_post"
		if resp := e.token(t, req); resp.GetError() != nil {
			t.Errorf("Token with the secret = %v, want tokens", resp.GetError())
		}
	})
}

package oauthedge

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/taskwire/taskwire/frontdoor"
)

func serve(e *Edge, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w
}

func formPost(path string, form url.Values) *http.Request {
	r := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// TestMetadata: the discovery document names the issuer exactly as its
// URL is built (the public URL, path included) and the endpoints under it,
// at both the root path and the path with the issuer's path appended.
func TestMetadata(t *testing.T) {
	e, _ := newTestEdge(t, "https://tw.example.com/board/", nil)
	for _, path := range []string{"/.well-known/oauth-authorization-server/board", "/.well-known/oauth-authorization-server"} {
		w := serve(e, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" ||
			w.Header().Get("Access-Control-Allow-Origin") != "*" || w.Header().Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("GET %s = %d, headers %v; want 200, JSON, CORS, cacheable", path, w.Code, w.Header())
		}
		var got map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"issuer":                                         "https://tw.example.com/board",
			"authorization_endpoint":                         "https://tw.example.com/board/oauth/authorize",
			"token_endpoint":                                 "https://tw.example.com/board/oauth/token",
			"registration_endpoint":                          "https://tw.example.com/board/oauth/register",
			"revocation_endpoint":                            "https://tw.example.com/board/oauth/revoke",
			"response_types_supported":                       []any{"code"},
			"response_modes_supported":                       []any{"query"},
			"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":               []any{"S256"},
			"token_endpoint_auth_methods_supported":          []any{"none", "client_secret_post", "client_secret_basic"},
			"revocation_endpoint_auth_methods_supported":     []any{"none", "client_secret_post", "client_secret_basic"},
			"scopes_supported":                               []any{"read", "comment", "write"},
			"client_id_metadata_document_supported":          true,
			"authorization_response_iss_parameter_supported": true,
			"service_documentation":                          DefaultDocumentation,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
	}
}

// TestOwns: the edge takes its own paths and leaves the console's
// authorization page, the MCP endpoint and the resource metadata.
func TestOwns(t *testing.T) {
	e, _ := newTestEdge(t, "http://127.0.0.1:8080", nil)
	for path, want := range map[string]bool{
		"/.well-known/oauth-authorization-server": true,
		"/oauth/token":     true,
		"/oauth/register":  true,
		"/oauth/revoke":    true,
		"/oauth/authorize": false,
		"/api/mcp":         false,
		"/.well-known/oauth-protected-resource/api/mcp": false,
	} {
		if got := e.Owns(path); got != want {
			t.Errorf("Owns(%s) = %t, want %t", path, got, want)
		}
	}
}

// TestToken: the form goes to the worker as it came, with the client's
// address; the answer is a Bearer token response that nothing may store.
func TestToken(t *testing.T) {
	e, f := newTestEdge(t, "http://127.0.0.1:8080", nil)
	r := formPost("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {"c1"}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"code_verifier": {"v"}, "resource": {"http://127.0.0.1:8080/api/mcp"}, "client_id": {"https://app.example/cimd"}})
	r.RemoteAddr = "192.0.2.7:5000"
	w := serve(e, r)
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Pragma") != "no-cache" ||
		w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("token = %d, headers %v; want 200, no-store, no-cache, CORS", w.Code, w.Header())
	}
	var got map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	want := map[string]any{"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600.0, "refresh_token": "rt-1", "scope": "read comment"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("token response (-want +got):\n%s", diff)
	}
	req := f.lastToken()
	if req.GetCode() != "c1" || req.GetCodeVerifier() != "v" || req.GetClientId() != "https://app.example/cimd" ||
		req.GetAuthMethod() != "none" || req.GetClientAddr() != "192.0.2.7" || req.GetResource() != "http://127.0.0.1:8080/api/mcp" {
		t.Errorf("the worker was asked %v", req)
	}
}

// TestTokenClientAuth: Basic credentials are form-urlencoded before
// encoding (RFC 6749 §2.3.1); a secret in the form is client_secret_post;
// both ways at once are refused.
func TestTokenClientAuth(t *testing.T) {
	e, f := newTestEdge(t, "http://127.0.0.1:8080", nil)
	r := formPost("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt"}})
	r.SetBasicAuth(url.QueryEscape("app:1"), url.QueryEscape("s3 cr+t%"))
	if w := serve(e, r); w.Code != http.StatusOK {
		t.Fatalf("token with Basic = %d %s", w.Code, w.Body)
	}
	if req := f.lastToken(); req.GetClientId() != "app:1" || req.GetClientSecret() != "s3 cr+t%" || req.GetAuthMethod() != "client_secret_basic" {
		t.Errorf("Basic decoded to %q / %q by %s", req.GetClientId(), req.GetClientSecret(), req.GetAuthMethod())
	}
	serve(e, formPost("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"app"}, "client_secret": {"pw"}}))
	if req := f.lastToken(); req.GetClientSecret() != "pw" || req.GetAuthMethod() != "client_secret_post" {
		t.Errorf("a form secret was sent as %q by %s", req.GetClientSecret(), req.GetAuthMethod())
	}
	both := formPost("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_secret": {"pw"}})
	both.SetBasicAuth("app", "pw")
	assertError(t, serve(e, both), http.StatusBadRequest, "invalid_request")
}

// TestTokenRefusals: malformed requests are refused before the worker,
// and the worker's refusals keep their code with RFC 6749's status.
func TestTokenRefusals(t *testing.T) {
	e, f := newTestEdge(t, "http://127.0.0.1:8080", nil)
	asJSON := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(`{"grant_type":"refresh_token"}`))
	asJSON.Header.Set("Content-Type", "application/json")
	assertError(t, serve(e, asJSON), http.StatusBadRequest, "invalid_request")
	twice := httptest.NewRequest("POST", "/oauth/token", strings.NewReader("code=a&code=b"))
	twice.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	assertError(t, serve(e, twice), http.StatusBadRequest, "invalid_request")
	if n := len(f.tokens); n != 0 {
		t.Errorf("the worker was asked %d times for malformed requests", n)
	}

	f.tokenErr = workerRefusal{"invalid_grant", "The code was used already."}.proto()
	w := serve(e, formPost("/oauth/token", url.Values{"grant_type": {"authorization_code"}}))
	assertError(t, w, http.StatusBadRequest, "invalid_grant")
	if !strings.Contains(w.Body.String(), "The code was used already.") || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("the refusal lacks its sentence or no-store: %v %s", w.Header(), w.Body)
	}
	f.tokenErr = workerRefusal{"invalid_client", "Wrong secret."}.proto()
	basic := formPost("/oauth/token", url.Values{"grant_type": {"refresh_token"}})
	basic.SetBasicAuth("app", "bad")
	w = serve(e, basic)
	assertError(t, w, http.StatusUnauthorized, "invalid_client")
	if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Basic ") {
		t.Errorf("invalid_client after Basic has WWW-Authenticate %q, want a Basic challenge", w.Header().Get("WWW-Authenticate"))
	}
}

// TestMethodsAndPreflight: browsers' preflights are answered with the
// headers an MCP client sends; other methods are 405 with Allow.
func TestMethodsAndPreflight(t *testing.T) {
	e, _ := newTestEdge(t, "http://127.0.0.1:8080", nil)
	pre := httptest.NewRequest("OPTIONS", "/oauth/token", nil)
	pre.Header.Set("Origin", "http://localhost:6274")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	w := serve(e, pre)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight = %d, headers %v", w.Code, w.Header())
	}
	for path, allow := range map[string]string{"/oauth/token": "POST, OPTIONS", "/oauth/register": "POST, OPTIONS",
		"/oauth/revoke": "POST, OPTIONS", "/.well-known/oauth-authorization-server": "GET, HEAD, OPTIONS"} {
		method := "GET"
		if strings.HasPrefix(allow, "GET") {
			method = "POST"
		}
		w := serve(e, httptest.NewRequest(method, path, nil))
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != allow {
			t.Errorf("%s %s = %d, Allow %q; want 405, Allow %q", method, path, w.Code, w.Header().Get("Allow"), allow)
		}
	}
}

// TestRegister: a JSON object is registered and answered 201 with the
// worker's document; anything else is invalid_client_metadata.
func TestRegister(t *testing.T) {
	e, f := newTestEdge(t, "http://127.0.0.1:8080", nil)
	r := httptest.NewRequest("POST", "/oauth/register", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"]}`))
	r.Header.Set("Content-Type", "application/json")
	w := serve(e, r)
	if w.Code != http.StatusCreated || w.Header().Get("Cache-Control") != "no-store" || !strings.Contains(w.Body.String(), `"client_id":"dcr-1"`) {
		t.Fatalf("register = %d %v %s", w.Code, w.Header(), w.Body)
	}
	if len(f.regs) != 1 || f.regs[0].GetMetadataJson() != `{"redirect_uris":["http://127.0.0.1/cb"]}` {
		t.Errorf("the worker was asked %v", f.regs)
	}
	assertError(t, serve(e, httptest.NewRequest("POST", "/oauth/register", strings.NewReader(`[1]`))), http.StatusBadRequest, "invalid_client_metadata")
	big := httptest.NewRequest("POST", "/oauth/register", strings.NewReader(`{"x":"`+strings.Repeat("a", 17<<10)+`"}`))
	assertError(t, serve(e, big), http.StatusBadRequest, "invalid_client_metadata")
	assertError(t, serve(e, httptest.NewRequest("POST", "/oauth/register", strings.NewReader(`{}`))), http.StatusBadRequest, "invalid_redirect_uri")
}

// TestRegisterRateLimit: one address may register only so often; others
// are not held back by it.
func TestRegisterRateLimit(t *testing.T) {
	e, _ := newTestEdge(t, "http://127.0.0.1:8080", func(c *Config) {
		c.Limits = &Limits{Register: frontdoor.RateLimit{PerSecond: 0.001, Burst: 1}}
	})
	reg := func(addr string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/oauth/register", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"]}`))
		r.RemoteAddr = addr + ":1000"
		return serve(e, r)
	}
	if w := reg("192.0.2.1"); w.Code != http.StatusCreated {
		t.Fatalf("first registration = %d", w.Code)
	}
	w := reg("192.0.2.1")
	assertError(t, w, http.StatusTooManyRequests, "temporarily_unavailable")
	if w.Header().Get("Retry-After") == "" {
		t.Error("the refusal does not say when to retry")
	}
	if w := reg("192.0.2.2"); w.Code != http.StatusCreated {
		t.Errorf("another address's registration = %d, want 201", w.Code)
	}
}

// TestRevoke: a revocation is 200 with no body; the worker's refusal is
// an OAuth error.
func TestRevoke(t *testing.T) {
	e, f := newTestEdge(t, "http://127.0.0.1:8080", nil)
	w := serve(e, formPost("/oauth/revoke", url.Values{"token": {"rt-1"}, "token_type_hint": {"refresh_token"}, "client_id": {"app"}}))
	if w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Fatalf("revoke = %d %s", w.Code, w.Body)
	}
	if got := f.revokes[0]; got.GetToken() != "rt-1" || got.GetTokenTypeHint() != "refresh_token" || got.GetClientId() != "app" {
		t.Errorf("the worker was asked %v", got)
	}
	assertError(t, serve(e, formPost("/oauth/revoke", url.Values{"client_id": {"app"}})), http.StatusBadRequest, "invalid_request")
	assertError(t, serve(e, formPost("/oauth/revoke", url.Values{"token": {"x"}})), http.StatusBadRequest, "invalid_client")
}

// TestWorkerDown: a worker that cannot be reached is a 503
// temporarily_unavailable in JSON, not an internal error.
func TestWorkerDown(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	e, _ := newTestEdge(t, "http://127.0.0.1:8080", func(c *Config) { c.Conn = conn })
	w := serve(e, formPost("/oauth/token", url.Values{"grant_type": {"refresh_token"}}).WithContext(context.Background()))
	assertError(t, w, http.StatusServiceUnavailable, "temporarily_unavailable")
}

// assertError checks an OAuth error response's status and code.
func assertError(t *testing.T, w *httptest.ResponseRecorder, code int, errCode string) {
	t.Helper()
	var body oauthError
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != code || body.Code != errCode || body.Description == "" {
		t.Errorf("response = %d %s, want %d with error %q and a description", w.Code, w.Body, code, errCode)
	}
}

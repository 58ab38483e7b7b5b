package frontdoor

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":         true,
		"LOCALHOST:8080":    true,
		"127.0.0.1":         true,
		"127.0.0.53:9":      true,
		"[::1]:8080":        true,
		"::1":               true,
		"evil.example.com":  false,
		"localhost.example": false,
		"10.0.0.1:8080":     false,
		"":                  false,
	} {
		if got := isLoopbackHost(host); got != want {
			t.Errorf("isLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// anonymousHandler is a test handler whose requests without a token act
// as the conformance suite's member.
func anonymousHandler(t *testing.T, endpoint string) (*Handler, error) {
	t.Helper()
	return New(Config{
		Endpoint: endpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(),
		SessionKeys: [][]byte{testSessionKey}, Logger: discardLog,
		Anonymous: &identity.Caller{Tenant: "conformance", Member: 9, Scopes: []string{authz.ScopeRead}},
	})
}

func TestAnonymousOnlyOnLoopback(t *testing.T) {
	if _, err := anonymousHandler(t, "https://board.example.com/api/mcp"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("New with Anonymous on a public endpoint: err = %v, want a refusal naming loopback", err)
	}
	if _, err := anonymousHandler(t, "http://localhost:8080/api/mcp"); err != nil {
		t.Fatalf("New with Anonymous on localhost: %v", err)
	}
}

func TestAnonymousCaller(t *testing.T) {
	h, err := anonymousHandler(t, testEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	// No Authorization header: served, as the anonymous caller, whose
	// read scope shows read tools only.
	req := newCall(t, 1, "tools/list", nil, nil)
	req.Header.Del("Authorization")
	rec := serve(h, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("tools/list without a token: %d %s", rec.Code, rec.Body)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	decodeResult(t, rec.Body.Bytes(), &list)
	all, _ := goldenBackend().Tools(context.Background(), identity.Caller{Scopes: authz.AllScopes})
	full := len(all)
	if len(list.Tools) == 0 || len(list.Tools) >= full {
		t.Errorf("anonymous caller sees %d tools, want the read-only ones (fewer than %d)", len(list.Tools), full)
	}

	// A token that is offered is still checked: a bad one is never
	// mistaken for no token.
	req = newCall(t, 2, "tools/list", nil, nil)
	req.Header.Set("Authorization", "Bearer forged")
	if rec := serve(h, req); rec.Code != http.StatusUnauthorized {
		t.Errorf("bad token on an anonymous endpoint: %d, want 401", rec.Code)
	}
}

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
)

// listenRequest is a 2026-07-28 subscriptions/listen with token.
func listenRequest(t *testing.T, ctx context.Context, endpoint, token string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen",
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestListenStreamLimit: with the default of 10 streams a token, the
// 11th is refused with 429 and -31429; closing one lets another open.
func TestListenStreamLimit(t *testing.T) {
	h := startHarnessWith(t, setups()[0], func(c *config) { c.Limits = limitsConfig{ListenPerToken: 10, ListenPerTenant: 200} })
	var cancels []context.CancelFunc
	for i := range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		if resp := listenRequest(t, ctx, h.sys.Endpoint, h.token); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d = %d, want 200", i+1, resp.StatusCode)
		}
		cancels = append(cancels, cancel)
	}
	resp := listenRequest(t, context.Background(), h.sys.Endpoint, h.token)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream 11 = %d, want 429", resp.StatusCode)
	}
	var m struct {
		Error struct {
			Code    int
			Message string
		}
	}
	json.NewDecoder(resp.Body).Decode(&m)
	if m.Error.Code != frontdoor.CodeRateLimited || !strings.Contains(m.Error.Message, "10 open subscriptions/listen streams") {
		t.Errorf("stream 11 error = %+v, want %d naming the limit of 10", m.Error, frontdoor.CodeRateLimited)
	}
	cancels[3]()
	waitFor(t, 10*time.Second, "a stream to open once one closed", func() bool {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return listenRequest(t, ctx, h.sys.Endpoint, h.token).StatusCode == http.StatusOK
	})
}

// TestAdminCreateTokenBurst: a burst of CreateToken from one credential
// meets its budget: 429 with Retry-After, whatever the worker would do.
func TestAdminCreateTokenBurst(t *testing.T) {
	// A call every 100 s: nothing refills while the test runs.
	h := startHarnessWith(t, setups()[0], func(c *config) {
		c.Limits = limitsConfig{AdminCredential: 0.01, AdminCredentialBurst: 20, AdminTenant: 1000, AdminTenantBurst: 1000}
	})
	a := newAdminClient(t, h)
	owner := h.adminToken(t, "owner")
	for i := range 20 {
		if code, out := a.post(owner, "CreateToken", `{"member":"owner","scopes":["read"]}`); code != http.StatusOK {
			t.Fatalf("CreateToken %d = %d %v, want 200", i+1, code, out)
		}
	}
	code, out := a.post(owner, "CreateToken", `{"member":"owner","scopes":["read"]}`)
	if code != http.StatusTooManyRequests || out["code"] != "resource_exhausted" {
		t.Fatalf("CreateToken 21 = %d %v, want 429 resource_exhausted", code, out)
	}
	// The operator secret is another credential, with a budget of its own.
	if code, out := a.post(operatorSecret(t, h), "ListTenants", `{}`); code != http.StatusOK {
		t.Errorf("the operator's call = %d %v, want 200", code, out)
	}
}

// TestAuthFailuresThrottled: requests without a valid token, on the MCP
// endpoint and the admin API together, throttle their address; its next
// request is refused before its token is checked.
func TestAuthFailuresThrottled(t *testing.T) {
	h := startHarnessWith(t, setups()[0], func(c *config) { c.Limits = limitsConfig{AuthFailures: 3, AuthWindow: time.Hour} })
	a := newAdminClient(t, h)
	for i := range 2 {
		if code := mcpStatus(t, h, "not-a-token"); code != http.StatusUnauthorized {
			t.Fatalf("MCP guess %d = %d, want 401", i+1, code)
		}
	}
	if code, _ := a.post("not-a-secret", "ListTenants", `{}`); code != http.StatusUnauthorized {
		t.Fatalf("admin guess = %d, want 401", code)
	}
	if code := mcpStatus(t, h, h.token); code != http.StatusTooManyRequests {
		t.Errorf("the owner's valid token from the throttled address = %d, want 429", code)
	}
	if code, out := a.post(operatorSecret(t, h), "ListTenants", `{}`); code != http.StatusTooManyRequests {
		t.Errorf("the operator secret from the throttled address = %d %v, want 429", code, out)
	}
}

// TestLimitFlags: the limits are on by default, and nonsense is refused
// naming the flag.
func TestLimitFlags(t *testing.T) {
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.listenLimits(); got != (frontdoor.StreamLimits{PerToken: 10, PerTenant: 200}) {
		t.Errorf("default listen limits = %+v, want 10 a token, 200 a tenant", got)
	}
	if got := c.adminRateLimits(); got.Token != (frontdoor.RateLimit{PerSecond: 5, Burst: 20}) || got.Tenant != (frontdoor.RateLimit{PerSecond: 20, Burst: 50}) {
		t.Errorf("default admin limits = %+v, want 5/s burst 20 a credential, 20/s burst 50 a tenant", got)
	}
	if got := c.authThrottle(); got.Failures != 20 || got.Window != time.Minute || len(got.TrustedProxies) != 0 {
		t.Errorf("default throttle = %+v, want 20 a minute, no trusted proxy", got)
	}

	c, err = parseServe("--trusted-proxies", "10.0.0.0/8, 192.0.2.7,fd00::/8", "--auth-failures", "30", "--rate-replicas", "4")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("fd00::/8")}
	if got := c.authThrottle(); got.Failures != 8 || len(got.TrustedProxies) != 3 || got.TrustedProxies[1] != want[1] || got.TrustedProxies[2] != want[2] {
		t.Errorf("throttle = %+v, want 8 failures (30 over 4 replicas) and proxies %v", got, want)
	}

	wantFlagRefused(t,
		[]string{"--listen-per-token", "-1"},
		[]string{"--listen-per-tenant", "-1"},
		[]string{"--admin-rate-credential", "-1"},
		[]string{"--admin-rate-tenant-burst", "0"},
		[]string{"--auth-failures", "-3"},
		[]string{"--auth-failure-window", "0s"},
		[]string{"--trusted-proxies", "10.0.0.0/33"},
		[]string{"--trusted-proxies", "proxy.internal"},
	)
}

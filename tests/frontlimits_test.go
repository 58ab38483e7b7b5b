package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
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
	h := nodetest.StartWith(t, nodetest.Setups()[0], func(c *node.SystemConfig) { c.ListenLimits = frontdoor.StreamLimits{PerToken: 10, PerTenant: 200} })
	var cancels []context.CancelFunc
	for i := range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		if resp := listenRequest(t, ctx, h.Sys.Endpoint, h.Token); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d = %d, want 200", i+1, resp.StatusCode)
		}
		cancels = append(cancels, cancel)
	}
	resp := listenRequest(t, context.Background(), h.Sys.Endpoint, h.Token)
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
	if m.Error.Code != jsonrpc.RateLimited || !strings.Contains(m.Error.Message, "10 open subscriptions/listen streams") {
		t.Errorf("stream 11 error = %+v, want %d naming the limit of 10", m.Error, jsonrpc.RateLimited)
	}
	cancels[3]()
	poll.Until(t, 10*time.Second, "a stream to open once one closed", func() bool {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return listenRequest(t, ctx, h.Sys.Endpoint, h.Token).StatusCode == http.StatusOK
	})
}

// TestAdminCreateTokenBurst: a burst of CreateToken from one credential
// meets its budget: 429 with Retry-After, whatever the worker would do.
func TestAdminCreateTokenBurst(t *testing.T) {
	// A call every 100 s: nothing refills while the test runs.
	h := nodetest.StartWith(t, nodetest.Setups()[0], func(c *node.SystemConfig) {
		c.AdminRateLimits = frontdoor.RateLimits{Token: frontdoor.RateLimit{PerSecond: 0.01, Burst: 20}, Tenant: frontdoor.RateLimit{PerSecond: 1000, Burst: 1000}}
	})
	a := nodetest.NewAdminClient(t, h)
	owner := h.AdminToken(t, "owner")
	for i := range 20 {
		if code, out := a.Post(owner, "CreateToken", `{"member":"owner","scopes":["read"]}`); code != http.StatusOK {
			t.Fatalf("CreateToken %d = %d %v, want 200", i+1, code, out)
		}
	}
	code, out := a.Post(owner, "CreateToken", `{"member":"owner","scopes":["read"]}`)
	if code != http.StatusTooManyRequests || out["code"] != "resource_exhausted" {
		t.Fatalf("CreateToken 21 = %d %v, want 429 resource_exhausted", code, out)
	}
	// The operator secret is another credential, with a budget of its own.
	if code, out := a.Post(h.OperatorSecret(t), "ListTenants", `{}`); code != http.StatusOK {
		t.Errorf("the operator's call = %d %v, want 200", code, out)
	}
}

// TestAuthFailuresThrottled: requests without a valid token, on the MCP
// endpoint and the admin API together, throttle their address; its next
// request is refused before its token is checked.
func TestAuthFailuresThrottled(t *testing.T) {
	h := nodetest.StartWith(t, nodetest.Setups()[0], func(c *node.SystemConfig) {
		c.AuthThrottle = frontdoor.AuthThrottleConfig{Failures: 3, Window: time.Hour}
	})
	a := nodetest.NewAdminClient(t, h)
	for i := range 2 {
		if code := h.MCPStatus(t, "not-a-token"); code != http.StatusUnauthorized {
			t.Fatalf("MCP guess %d = %d, want 401", i+1, code)
		}
	}
	if code, _ := a.Post("not-a-secret", "ListTenants", `{}`); code != http.StatusUnauthorized {
		t.Fatalf("admin guess = %d, want 401", code)
	}
	if code := h.MCPStatus(t, h.Token); code != http.StatusTooManyRequests {
		t.Errorf("the owner's valid token from the throttled address = %d, want 429", code)
	}
	if code, out := a.Post(h.OperatorSecret(t), "ListTenants", `{}`); code != http.StatusTooManyRequests {
		t.Errorf("the operator secret from the throttled address = %d %v, want 429", code, out)
	}
}

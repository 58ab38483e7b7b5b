package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestRateLimits: with a tiny limit, the call past a token's burst gets
// 429 with Retry-After; another token of the tenant still passes until
// the tenant's budget runs dry; whoami, served by the worker, reports the
// budget the front door holds.
func TestRateLimits(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			// A call every 100 s: nothing refills while the test runs.
			s.rate = rateConfig{Token: 0.01, TokenBurst: 2, Tenant: 0.01, TenantBurst: 3}
			h := startHarness(t, s)
			tenant := h.sys.first.Tenant.Slug
			kim, err := tenancy.AddMember(context.Background(), h.sys.DB, tenant, tenancy.MemberSpec{Handle: "kim", Name: "Kim"})
			if err != nil {
				t.Fatal(err)
			}
			other := recordToken(t, h.sys.DB, h.sys.Issuer, tenant, kim.ID, authz.AllScopes)

			for i := range 2 {
				if code, _, body := callTool(t, h.sys.Endpoint, h.token, i, "tasks_list"); code != http.StatusOK {
					t.Fatalf("call %d of the burst = %d %s", i+1, code, body)
				}
			}
			code, hdr, body := callTool(t, h.sys.Endpoint, h.token, 3, "tasks_list")
			wantLimited(t, code, hdr, body, "token")

			if code, _, body := callTool(t, h.sys.Endpoint, other, 4, "tasks_list"); code != http.StatusOK {
				t.Fatalf("another token of the tenant = %d %s, want 200", code, body)
			}
			code, hdr, body = callTool(t, h.sys.Endpoint, other, 5, "tasks_list")
			wantLimited(t, code, hdr, body, "tenant")

			// whoami has budgets of its own, full until now.
			owner, _ := h.client(t, h.token, nil)
			budget, _ := callOK(t, owner, "whoami", nil)["budget"].(map[string]any)
			want := map[string]any{
				"token":  map[string]any{"remaining": 1.0, "per_second": 0.01, "burst": 2.0},
				"tenant": map[string]any{"remaining": 2.0, "per_second": 0.01, "burst": 3.0},
			}
			if got, _ := json.Marshal(budget); string(got) != mustJSON(t, want) {
				t.Errorf("whoami budget = %s, want %s", got, mustJSON(t, want))
			}
		})
	}
}

// TestNoRateLimits: without limits whoami reports no budget.
func TestNoRateLimits(t *testing.T) {
	h := startHarness(t, setups()[0])
	cs, _ := h.client(t, h.token, nil)
	if who := callOK(t, cs, "whoami", nil); who["budget"] != nil {
		t.Errorf("whoami budget without limits = %v, want none", who["budget"])
	}
}

// wantLimited checks a 429 and its JSON-RPC error.
func wantLimited(t *testing.T, code int, hdr http.Header, body []byte, limit string) {
	t.Helper()
	if code != http.StatusTooManyRequests {
		t.Fatalf("call over the %s limit = %d %s, want 429", limit, code, body)
	}
	if secs, err := strconv.Atoi(hdr.Get("Retry-After")); err != nil || secs < 1 || secs > 100 {
		t.Errorf("Retry-After = %q, want whole seconds between 1 and 100", hdr.Get("Retry-After"))
	}
	mcptest.ValidateServerMessage(t, body, "tools/call")
	var msg struct {
		Error struct {
			Code int
			Data struct{ Limit, Key string }
		}
	}
	json.Unmarshal(body, &msg)
	if e := msg.Error; e.Code != frontdoor.CodeRateLimited || e.Data.Limit != limit || e.Data.Key != "tools/call:tasks_list" {
		t.Errorf("429 error = %+v, want code %d, limit %s, key tools/call:tasks_list", e, frontdoor.CodeRateLimited, limit)
	}
}

// callTool posts a 2026-07-28 tools/call of name with token.
func callTool(t *testing.T, endpoint, token string, id int, name string) (int, http.Header, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name,
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, raw
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseServe is the configuration of `taskwire serve args`, resolved.
func parseServe(args ...string) (*config, error) {
	var c config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.serveFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return &c, c.resolve("127.0.0.1:8080")
}

// wantFlagRefused checks that serve refuses each of cases with an error
// naming its first argument, the flag.
func wantFlagRefused(t *testing.T, cases ...[]string) {
	t.Helper()
	for _, args := range cases {
		if _, err := parseServe(args...); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("serve %v: error %v, want one naming %s", args, err, args[0])
		}
	}
}

// TestRateFlags: the limits are on by default, the environment sets them,
// a flag wins, and nonsense is refused naming the flag.
func TestRateFlags(t *testing.T) {
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	want := frontdoor.RateLimits{Token: frontdoor.RateLimit{PerSecond: 10, Burst: 20}, Tenant: frontdoor.RateLimit{PerSecond: 50, Burst: 100}, Replicas: 1}
	if got := c.rateLimits(); got.Token != want.Token || got.Tenant != want.Tenant || got.Replicas != want.Replicas {
		t.Errorf("default limits = %+v, want %+v", got, want)
	}

	t.Setenv("TASKWIRE_RATE_TOKEN", "0")
	t.Setenv("TASKWIRE_RATE_REPLICAS", "3")
	if c, err = parseServe("--rate-replicas", "4"); err != nil {
		t.Fatal(err)
	}
	if got := c.rateLimits(); got.Token.PerSecond != 0 || got.Replicas != 4 {
		t.Errorf("limits = %+v, want the token limit off (env) and 4 replicas (flag over env)", got)
	}

	wantFlagRefused(t,
		[]string{"--rate-tenant-burst", "0"},
		[]string{"--rate-token", "-1"},
		[]string{"--rate-replicas", "-2"},
	)
	t.Setenv("TASKWIRE_RATE_TENANT", "ten")
	if _, err := parseServe(); err == nil || !strings.Contains(err.Error(), "TASKWIRE_RATE_TENANT") {
		t.Errorf("TASKWIRE_RATE_TENANT=ten: error %v, want one naming it", err)
	}
}

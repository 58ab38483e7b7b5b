package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestRateLimits: with a tiny limit, the call past a token's burst gets
// 429 with Retry-After; another token of the tenant still passes until
// the tenant's budget runs dry; whoami, served by the worker, reports the
// budget the front door holds.
func TestRateLimits(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			// A call every 100 s: nothing refills while the test runs.
			s.RateLimits = frontdoor.RateLimits{Token: frontdoor.RateLimit{PerSecond: 0.01, Burst: 2}, Tenant: frontdoor.RateLimit{PerSecond: 0.01, Burst: 3}}
			h := nodetest.Start(t, s)
			tenant := h.Sys.First().Tenant.Slug
			kim, err := tenancy.AddMember(context.Background(), h.Sys.DB, tenant, tenancy.MemberSpec{Handle: "kim", Name: "Kim"})
			if err != nil {
				t.Fatal(err)
			}
			other := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, tenant, kim.ID, authz.AllScopes)

			for i := range 2 {
				if code, _, body := nodetest.CallTool(t, h.Sys.Endpoint, h.Token, i, "tasks_list"); code != http.StatusOK {
					t.Fatalf("call %d of the burst = %d %s", i+1, code, body)
				}
			}
			code, hdr, body := nodetest.CallTool(t, h.Sys.Endpoint, h.Token, 3, "tasks_list")
			wantLimited(t, code, hdr, body, "token")

			if code, _, body := nodetest.CallTool(t, h.Sys.Endpoint, other, 4, "tasks_list"); code != http.StatusOK {
				t.Fatalf("another token of the tenant = %d %s, want 200", code, body)
			}
			code, hdr, body = nodetest.CallTool(t, h.Sys.Endpoint, other, 5, "tasks_list")
			wantLimited(t, code, hdr, body, "tenant")

			// whoami has budgets of its own, full until now.
			owner, _ := h.Client(t, h.Token, nil)
			budget, _ := nodetest.CallOK(t, owner, "whoami", nil)["budget"].(map[string]any)
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
	h := nodetest.Start(t, nodetest.Setups()[0])
	cs, _ := h.Client(t, h.Token, nil)
	if who := nodetest.CallOK(t, cs, "whoami", nil); who["budget"] != nil {
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
	if e := msg.Error; e.Code != jsonrpc.RateLimited || e.Data.Limit != limit || e.Data.Key != "tools/call:tasks_list" {
		t.Errorf("429 error = %+v, want code %d, limit %s, key tools/call:tasks_list", e, jsonrpc.RateLimited, limit)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

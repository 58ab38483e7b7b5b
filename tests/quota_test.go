package main

import (
	"context"
	"flag"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/quota"
)

// TestQuotas: a tenant at its task quota gets an isError result naming
// it, for a create and for an import, which creates nothing; the admin
// API refuses a member beyond the quota with 409; whoami shows the use.
func TestQuotas(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			h := startHarnessWith(t, s, func(c *config) { c.Quota = quota.Limits{Tasks: 3, Members: 2, TokensPerMember: 5} })
			cs, _ := h.client(t, h.token, nil)
			for _, title := range []string{"One", "Two"} {
				callOK(t, cs, "tasks_create", map[string]any{"title": title})
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{
				"tasks": []map[string]any{{"title": "Three"}, {"title": "Four"}},
			}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "so 2 more do not fit: nothing was imported") {
				t.Fatalf("tasks_import over the quota = %v, %v; want an isError result saying nothing was imported", text(res), err)
			}
			callOK(t, cs, "tasks_create", map[string]any{"title": "Three"})
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"title": "Four"}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "holds 3 tasks, its quota") {
				t.Fatalf("tasks_create over the quota = %v, %v; want an isError result naming the quota", text(res), err)
			}

			a := newAdminClient(t, h)
			owner := h.adminToken(t, "owner")
			if code, out := a.post(owner, "AddMember", `{"handle":"bea"}`); code != http.StatusOK {
				t.Fatalf("AddMember with room = %d %v", code, out)
			}
			code, out := a.post(owner, "AddMember", `{"handle":"cy"}`)
			if code != http.StatusConflict || out["code"] != "resource_exhausted" || !strings.Contains(out["message"].(string), "has 2 members, its quota") {
				t.Errorf("AddMember over the quota = %d %v, want 409 resource_exhausted naming the quota", code, out)
			}

			who := callOK(t, cs, "whoami", nil)
			want := map[string]any{
				"tasks":   map[string]any{"used": 3.0, "limit": 3.0},
				"members": map[string]any{"used": 2.0, "limit": 2.0},
				// The owner's MCP token and the admin token minted above.
				"tokens": map[string]any{"used": 2.0, "limit": 5.0},
			}
			if got := mustJSON(t, who["quota"]); got != mustJSON(t, want) {
				t.Errorf("whoami quota = %s, want %s", got, mustJSON(t, want))
			}
		})
	}
}

// TestNoQuotas: without quotas whoami reports none.
func TestNoQuotas(t *testing.T) {
	h := startHarness(t, setups()[0])
	cs, _ := h.client(t, h.token, nil)
	if who := callOK(t, cs, "whoami", nil); who["quota"] != nil {
		t.Errorf("whoami quota without quotas = %v, want none", who["quota"])
	}
}

// TestQuotaFlags: the quotas are on by default for serve and worker, and
// a negative one is refused naming its flag.
func TestQuotaFlags(t *testing.T) {
	var serve config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	serve.serveFlags(fs)
	var worker nodeConfig
	wfs := flag.NewFlagSet("worker", flag.ContinueOnError)
	worker.workerFlags(wfs)
	if serve.Quota != quota.Defaults || worker.Quota != quota.Defaults || quota.Defaults != (quota.Limits{Tasks: 50_000, Members: 1_000, TokensPerMember: 50}) {
		t.Errorf("default quotas: serve %+v, worker %+v; want 50000 tasks, 1000 members, 50 tokens a member", serve.Quota, worker.Quota)
	}
	wantFlagRefused(t,
		[]string{"--quota-tasks", "-1"},
		[]string{"--quota-members", "-1"},
		[]string{"--quota-tokens-per-member", "-1"},
	)
}

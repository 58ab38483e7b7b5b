package tests

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestQuotas: a tenant at its task quota gets an isError result naming
// it, for a create and for an import, which creates nothing; the admin
// API refuses a member beyond the quota with 409; boards stop at theirs,
// over MCP and the admin API alike; whoami shows the use.
func TestQuotas(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.StartWith(t, s, func(c *node.SystemConfig) {
				c.Quota = quota.Limits{Tasks: 3, Members: 2, TokensPerMember: 5, Boards: 2}
			})
			cs, _ := h.Client(t, h.Token, nil)
			for _, title := range []string{"One", "Two"} {
				nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": title})
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{
				"tasks": []map[string]any{{"title": "Three"}, {"title": "Four"}},
			}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "so 2 more do not fit: nothing was imported") {
				t.Fatalf("tasks_import over the quota = %v, %v; want an isError result saying nothing was imported", nodetest.Text(res), err)
			}
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Three"})
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"title": "Four"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "holds 3 tasks, its quota") {
				t.Fatalf("tasks_create over the quota = %v, %v; want an isError result naming the quota", nodetest.Text(res), err)
			}

			a := nodetest.NewAdminClient(t, h)
			owner := h.AdminToken(t, "owner")
			if code, out := a.Post(owner, "AddMember", `{"handle":"bea"}`); code != http.StatusOK {
				t.Fatalf("AddMember with room = %d %v", code, out)
			}
			code, out := a.Post(owner, "AddMember", `{"handle":"cy"}`)
			if code != http.StatusConflict || out["code"] != "resource_exhausted" || !strings.Contains(out["message"].(string), "has 2 members, its quota") {
				t.Errorf("AddMember over the quota = %d %v, want 409 resource_exhausted naming the quota", code, out)
			}

			nodetest.CallOK(t, cs, "boards_create", map[string]any{"slug": "ops", "name": "Operations"})
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boards_create", Arguments: map[string]any{"slug": "web", "name": "Web"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "has 2 boards, its quota") {
				t.Errorf("boards_create over the quota = %v, %v; want an isError result naming the quota", nodetest.Text(res), err)
			}
			if code, out := a.Post(owner, "CreateBoard", `{"board":"web","name":"Web"}`); code != http.StatusConflict || out["code"] != "resource_exhausted" {
				t.Errorf("CreateBoard over the quota = %d %v, want 409 resource_exhausted", code, out)
			}

			who := nodetest.CallOK(t, cs, "whoami", nil)
			want := map[string]any{
				"tasks":   map[string]any{"used": 3.0, "limit": 3.0},
				"members": map[string]any{"used": 2.0, "limit": 2.0},
				// The owner's MCP token and the admin token minted above.
				"tokens": map[string]any{"used": 2.0, "limit": 5.0},
				"boards": map[string]any{"used": 2.0, "limit": 2.0},
			}
			if got := mustJSON(t, who["quota"]); got != mustJSON(t, want) {
				t.Errorf("whoami quota = %s, want %s", got, mustJSON(t, want))
			}
		})
	}
}

// TestNoQuotas: without quotas whoami reports none.
func TestNoQuotas(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	cs, _ := h.Client(t, h.Token, nil)
	if who := nodetest.CallOK(t, cs, "whoami", nil); who["quota"] != nil {
		t.Errorf("whoami quota without quotas = %v, want none", who["quota"])
	}
}

package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAuditLog: the calls members make reach the audit log, which owners
// and admins read with audit_list: with the tool, what it named and how it
// ended, refusals included. A viewer does not see the tool and is refused
// it.
func TestAuditLog(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			ctx := context.Background()
			tenant := h.Sys.First().Tenant
			owner, _ := h.Client(t, h.Token, nil)
			ref := nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Plan the launch"})["task"].(map[string]any)["ref"].(string)
			nodetest.CallOK(t, owner, "tasks_move", map[string]any{"ref": ref, "lane": "doing"})
			if res, err := owner.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-99"}}); err != nil || !res.IsError {
				t.Fatalf("tasks_get T-99 = %v, %v; want an isError result", res, err)
			}

			vera, err := tenancy.AddMember(ctx, h.Sys.DB, tenant.Slug, tenancy.MemberSpec{Handle: "vera", Name: "Vera", Role: member.RoleViewer})
			if err != nil {
				t.Fatal(err)
			}
			viewer, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, tenant.Slug, vera.ID, authz.AllScopes), nil)
			if slices.Contains(nodetest.ListedTools(t, viewer), "audit_list") {
				t.Error("a viewer sees audit_list, which only owners and admins may use")
			}
			res, err := viewer.CallTool(ctx, &mcp.CallToolParams{Name: "audit_list", Arguments: map[string]any{}})
			want := "You are a viewer on tenant " + tenant.Slug + ", and only owners and admins may list the audit log (audit_list). Ask an owner or admin of " + tenant.Slug + " if you need it done."
			if err != nil || !res.IsError || nodetest.Text(res) != want {
				t.Errorf("viewer audit_list = %v %q, want isError %q", err, nodetest.Text(res), want)
			}
			if res, err := viewer.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_move", Arguments: map[string]any{"ref": ref, "lane": "done"}}); err != nil || !res.IsError {
				t.Errorf("viewer tasks_move = %v, %v; want an isError refusal", res, err)
			}

			// The owner's calls, newest first, as they are written (the
			// workers write the log as calls end, asynchronously).
			mine := auditEvents(t, owner, map[string]any{"member": "me", "outcome": "ok"}, 2, func(e map[string]any) bool { return e["tool"] != "audit_list" })
			wantTools := []string{"tasks_move", "tasks_create"}
			for i, e := range mine[:2] {
				if e["tool"] != wantTools[i] || e["member"] != h.Sys.First().Owner.Handle || e["kind"] != "human" || e["outcome"] != "ok" || e["token_id"] == "" {
					t.Errorf("owner event %d = %v, want %s by %s, ok, with the token", i, e, wantTools[i], h.Sys.First().Owner.Handle)
				}
			}
			if !sameStrings(mine[0]["targets"], []string{"ref=" + ref}) {
				t.Errorf("tasks_move targets = %v, want ref=%s", mine[0]["targets"], ref)
			}
			failed := auditEvents(t, owner, map[string]any{"tool": "tasks_get", "outcome": "error"}, 1, nil)
			if e := failed[0]; e["outcome"] != "NotFound" || !sameStrings(e["targets"], []string{"ref=T-99"}) || e["error"] == "" {
				t.Errorf("failed tasks_get = %v, want NotFound for ref=T-99 with its message", e)
			}
			// What audit_list returns matches the outputSchema it announces.
			tools, err := owner.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			compileOutputSchemas(t, tools.Tools).check(t, "audit_list", nodetest.CallOK(t, owner, "audit_list", map[string]any{"limit": 100}))
			// A client may name its session; the label reaches the log.
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"boards_list","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			req, _ := http.NewRequest(http.MethodPost, h.Sys.Endpoint, strings.NewReader(body))
			for k, v := range map[string]string{"Authorization": "Bearer " + h.Token, "Content-Type": "application/json",
				"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
				"Mcp-Name": "boards_list", "Taskwire-Session-Label": "laptop claude"} {
				req.Header.Set(k, v)
			}
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.Body.Close() != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("boards_list with a session label: %v %v", resp, err)
			}
			labelled := auditEvents(t, owner, map[string]any{"tool": "boards_list"}, 1, nil)
			if labelled[0]["session_label"] != "laptop claude" {
				t.Errorf("boards_list event = %v, want session_label laptop claude", labelled[0])
			}
			refused := auditEvents(t, owner, map[string]any{"member": "vera"}, 2, nil)
			if refused[0]["tool"] != "tasks_move" || refused[1]["tool"] != "audit_list" ||
				refused[0]["outcome"] != "refused" || refused[1]["outcome"] != "refused" || refused[1]["error"] != want {
				t.Errorf("vera's events = %v, want her refused tasks_move and audit_list", refused)
			}
		})
	}
}

// auditEvents lists the audit log with args until at least n events that
// keep (nil: all) are there, and returns those.
func auditEvents(t *testing.T, cs *mcp.ClientSession, args map[string]any, n int, keep func(map[string]any) bool) []map[string]any {
	t.Helper()
	var events []map[string]any
	poll.Until(t, 10*time.Second, "audit events", func() bool {
		events = nil
		list, _ := nodetest.CallOK(t, cs, "audit_list", args)["items"].([]any)
		for _, e := range list {
			if e := e.(map[string]any); keep == nil || keep(e) {
				events = append(events, e)
			}
		}
		return len(events) >= n
	})
	return events
}

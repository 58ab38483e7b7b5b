package tests

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestRoles: what a call may do is the member's role narrowed by its
// token's scopes, read from the database on every call. A viewer holding a
// token with every scope sees only the reading tools, is refused a write in
// a sentence the model can relay, and can ask whoami why; once an admin
// raises its role, the next call works.
func TestRoles(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			ctx := context.Background()
			tenant := h.Sys.First().Tenant
			vera, err := tenancy.AddMember(ctx, h.Sys.DB, tenant.Slug, tenancy.MemberSpec{Handle: "vera", Name: "Vera", Role: member.RoleViewer})
			if err != nil {
				t.Fatal(err)
			}
			bot, err := tenancy.AddMember(ctx, h.Sys.DB, tenant.Slug, tenancy.MemberSpec{
				Handle: "bot", Name: "Bot", Kind: member.KindAssistant, SponsorHandle: h.Sys.First().Owner.Handle})
			if err != nil {
				t.Fatal(err)
			}
			mint := func(m *ent.Member, scopes ...string) string {
				t.Helper()
				return nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, tenant.Slug, m.ID, scopes)
			}
			owner, _ := h.Client(t, h.Token, nil)
			ref := nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Plan the launch"})["task"].(map[string]any)["ref"].(string)

			viewer, _ := h.Client(t, mint(vera, authz.AllScopes...), nil)
			if got, want := nodetest.ListedTools(t, viewer), []string{"boards_list", "boards_get", "members_list", "context_get", "tasks_get", "tasks_list", "tasks_search", "comments_list", "whoami"}; !slices.Equal(got, want) {
				t.Errorf("viewer sees tools %v, want %v", got, want)
			}
			move := &mcp.CallToolParams{Name: "tasks_move", Arguments: map[string]any{"ref": ref, "lane": "doing"}}
			res, err := viewer.CallTool(ctx, move)
			if err != nil {
				t.Fatalf("viewer tasks_move = %v, want an isError result", err)
			}
			want := "You are a viewer on tenant " + tenant.Slug + ", and viewers can only read: you cannot move a task (tasks_move needs write). Ask an owner or admin of " + tenant.Slug + " for a role that allows write."
			if got := nodetest.Text(res); !res.IsError || got != want {
				t.Errorf("viewer tasks_move = isError %v %q, want isError %q", res.IsError, got, want)
			}
			who := nodetest.CallOK(t, viewer, "whoami", nil)
			if who["handle"] != "vera" || who["role"] != "viewer" || who["kind"] != "human" || who["tenant"] != tenant.Slug ||
				!sameStrings(who["scopes"], authz.AllScopes) || !sameStrings(who["allowed"], []string{"read"}) {
				t.Errorf("viewer whoami = %v, want vera, viewer, human, scopes read comment write, allowed read", who)
			}

			assistant, _ := h.Client(t, mint(bot, authz.ScopeComment), nil)
			who = nodetest.CallOK(t, assistant, "whoami", nil)
			if who["role"] != "member" || who["kind"] != "assistant" || who["sponsor"] != h.Sys.First().Owner.Handle ||
				!sameStrings(who["scopes"], []string{"comment"}) || !sameStrings(who["allowed"], []string{"read", "comment"}) {
				t.Errorf("assistant whoami = %v, want an assistant member sponsored by %s, allowed read and comment", who, h.Sys.First().Owner.Handle)
			}

			// An admin raises vera's role: it applies as soon as the
			// workers hear of it (a broadcast, which the worker serving the
			// admin call need not have heard when the call returns).
			if status, out := nodetest.NewAdminClient(t, h).Post(h.AdminToken(t, "owner"), "SetMemberRole", `{"handle":"vera","role":"MEMBER_ROLE_MEMBER"}`); status != 200 {
				t.Fatalf("SetMemberRole vera member = %d %v", status, out)
			}
			poll.Until(t, 5*time.Second, "vera's new role to apply", func() bool { return nodetest.CallOK(t, viewer, "whoami", nil)["role"] == "member" })
			res, err = viewer.CallTool(ctx, move)
			if err != nil || res.IsError {
				t.Fatalf("tasks_move after promotion = %v %q, want success", err, nodetest.Text(res))
			}
			if lane := nodetest.Structured(t, res)["task"].(map[string]any)["lane"]; lane != "doing" {
				t.Errorf("tasks_move after promotion: lane %v, want doing", lane)
			}
			if got := nodetest.CallOK(t, viewer, "whoami", nil); got["role"] != "member" {
				t.Errorf("whoami after promotion: role %v, want member", got["role"])
			}
			// A new session lists the writing tools (a client may keep
			// an earlier list for its ttl).
			fresh, _ := h.Client(t, mint(vera, authz.AllScopes...), nil)
			if got := nodetest.ListedTools(t, fresh); !slices.Contains(got, "tasks_move") {
				t.Errorf("member sees tools %v, want tasks_move among them", got)
			}
		})
	}
}

// sameStrings reports whether v, a JSON array, holds want in order.
func sameStrings(v any, want []string) bool {
	list, _ := v.([]any)
	if len(list) != len(want) {
		return false
	}
	for i, x := range list {
		if x != want[i] {
			return false
		}
	}
	return true
}

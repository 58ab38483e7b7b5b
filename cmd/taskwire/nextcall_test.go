package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestRevocationHoldsOnTheNextCall: while serve runs, every way of taking
// rights away holds from the very next call, with no waiting: `taskwire
// token revoke` (which goes through the running server's admin API, found
// through the data directory, and says so truly), the admin API's
// RemoveMember and SetMemberRole. Each token was used just before, so the
// worker remembered it as live.
func TestRevocationHoldsOnTheNextCall(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			dir := h.Sys.Config().DataDir
			a := newAdminClient(t, h)
			op := h.OperatorSecret(t)
			cli := func(args ...string) (string, string) {
				t.Helper()
				var out, errOut bytes.Buffer
				if err := run(context.Background(), append(args, "--data", dir), &out, &errOut); err != nil {
					t.Fatalf("taskwire %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
				}
				return out.String(), errOut.String()
			}
			used := func(token string) {
				t.Helper()
				for range 2 {
					if code, why := nodetest.MCPRefusal(t, h, token); code != http.StatusOK {
						t.Fatalf("a live token: %d %q, want 200", code, why)
					}
				}
			}

			// The command line, through the running server.
			token, created := cli("token", "create", "--member", "owner", "--scopes", "read")
			token = strings.TrimSpace(token)
			id := regexp.MustCompile(`^token (\S+) for `).FindStringSubmatch(created)
			if id == nil {
				t.Fatalf("token create printed %q on stderr, want the token's id", created)
			}
			used(token)
			out, note := cli("token", "revoke", id[1])
			if out != "revoked token "+id[1]+"\n" || !strings.Contains(note, "refused from the next call") {
				t.Errorf("token revoke = %q, %q; want it revoked by the server", out, note)
			}
			if code, why := nodetest.MCPRefusal(t, h, token); code != http.StatusUnauthorized || why != "the token was revoked: ask an admin for a new one" {
				t.Errorf("the next call after token revoke: %d %q, want 401 saying it was revoked", code, why)
			}
			listed, _ := cli("token", "list", "--json")
			var tokens []map[string]any
			if err := json.Unmarshal([]byte(listed), &tokens); err != nil || !hasToken(tokens, id[1], "revoked") {
				t.Errorf("token list --json = %s (%v), want %s revoked", listed, err, id[1])
			}

			// Removing a member.
			a.cliOK(op, "members", "add", "mo", "--tenant", "default")
			moToken, _ := cli("token", "create", "--member", "mo")
			moToken = strings.TrimSpace(moToken)
			used(moToken)
			a.cliOK(op, "members", "remove", "mo", "--tenant", "default")
			if code, _ := nodetest.MCPRefusal(t, h, moToken); code != http.StatusUnauthorized {
				t.Errorf("the next call of a removed member: %d, want 401", code)
			}

			// Lowering a role.
			a.cliOK(op, "members", "add", "rae", "--tenant", "default")
			raeToken, _ := cli("token", "create", "--member", "rae")
			raeToken = strings.TrimSpace(raeToken)
			create := func(id int) map[string]any {
				body := `{"jsonrpc":"2.0","id":` + nodetest.Itoa(id) + `,"method":"tools/call","params":{"name":"tasks_create","arguments":{"title":"Task ` + nodetest.Itoa(id) + `"},` +
					`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
				_, raw := nodetest.PostMCP(t, h.Sys.Endpoint, raeToken, "tools/call", "tasks_create", body)
				var m map[string]any
				json.Unmarshal(raw, &m)
				return m
			}
			if m := create(1); nodetest.IsError(m) {
				t.Fatalf("tasks_create as a member = %v, want it done", m)
			}
			a.cliOK(op, "members", "set-role", "rae", "viewer", "--tenant", "default")
			if m := create(2); !nodetest.IsError(m) {
				t.Errorf("the next tasks_create after lowering rae to viewer = %v, want refused", m)
			}
		})
	}
}

// hasToken reports whether list (token list --json) has token id in state.
func hasToken(list []map[string]any, id, state string) bool {
	for _, tok := range list {
		if tok["id"] == id && tok["state"] == state {
			return true
		}
	}
	return false
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAdminTokenToolsets: an owner mints a token limited to the tasks and
// comments toolsets with the admin CLI; the listing shows its toolsets;
// over MCP the token is shown only their tools, may call them, and is
// refused any other with 403, naming its toolsets.
func TestAdminTokenToolsets(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			a := newAdminClient(t, h)
			admin := h.AdminToken(t, "owner")
			a.cliOK(admin, "members", "add", "dana", "--role", "member")
			out := a.cliOK(admin, "tokens", "create", "--member", "dana", "--toolsets", "comments,tasks,comments", "--json")
			var created struct {
				Token string
				Info  struct{ Toolsets []string }
			}
			if err := json.Unmarshal([]byte(out), &created); err != nil || created.Token == "" {
				t.Fatalf("tokens create --json printed %s (%v), want the token", out, err)
			}
			want := []string{"tasks", "comments"}
			if !slices.Equal(created.Info.Toolsets, want) {
				t.Errorf("tokens create toolsets = %v, want %v", created.Info.Toolsets, want)
			}
			table := a.cliOK(admin, "tokens", "list")
			if !strings.Contains(table, "TOOLSETS") || !strings.Contains(table, " tasks,comments ") || !strings.Contains(table, " all ") {
				t.Errorf("tokens list =\n%s\nwant a TOOLSETS column with dana's tasks,comments and the owner's all", table)
			}

			cs, _ := h.Client(t, created.Token, nil)
			tools := nodetest.ListedTools(t, cs)
			for _, name := range tools {
				if !strings.HasPrefix(name, "tasks_") && !strings.HasPrefix(name, "comments_") {
					t.Errorf("the limited token is shown %s, outside tasks and comments", name)
				}
			}
			if !slices.Contains(tools, "tasks_create") || !slices.Contains(tools, "comments_add") {
				t.Errorf("the limited token's tools = %v, want tasks_create and comments_add among them", tools)
			}
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Limit tokens to toolsets"})

			code, header, body := nodetest.CallTool(t, h.Sys.Endpoint, created.Token, 7, "whoami")
			if code != http.StatusForbidden || !strings.Contains(header.Get("Www-Authenticate"), `error="insufficient_scope"`) ||
				!strings.Contains(string(body), "limited to the toolsets tasks, comments, and whoami is in the context toolset") {
				t.Errorf("whoami with the limited token = %d %v %s, want 403 naming its toolsets", code, header, body)
			}

			// A token that includes the context toolset reads its limit
			// through whoami; an unlimited one has none.
			out = a.cliOK(admin, "tokens", "create", "--member", "dana", "--toolsets", "tasks,context", "--json")
			if err := json.Unmarshal([]byte(out), &created); err != nil {
				t.Fatal(err)
			}
			withContext, _ := h.Client(t, created.Token, nil)
			if got := nodetest.CallOK(t, withContext, "whoami", nil)["toolsets"]; !slices.Equal(anyStrings(got), []string{"context", "tasks"}) {
				t.Errorf("whoami toolsets = %v, want [context tasks]", got)
			}
			owner, _ := h.Client(t, h.Token, nil)
			if got, ok := nodetest.CallOK(t, owner, "whoami", nil)["toolsets"]; ok {
				t.Errorf("whoami toolsets of an unlimited token = %v, want none", got)
			}

			if _, err := a.cli(admin, "tokens", "create", "--member", "dana", "--toolsets", "tasks,boards"); err == nil || !strings.Contains(err.Error(), `"boards"`) {
				t.Errorf("tokens create --toolsets tasks,boards = %v, want an error naming boards", err)
			}
		})
	}
}

// TestTokenCommandToolsets: `taskwire token create --toolsets` limits the
// token, and `token list` shows the limit in its table and its JSON.
func TestTokenCommandToolsets(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			c := newTokenCLI(t, b)
			if _, stderr := c.ok("create", "--member", "bot", "--toolsets", "work,context"); !strings.Contains(stderr, "toolsets context,work,") {
				t.Errorf("token create said %q, want it to name toolsets context,work", stderr)
			}
			if _, stderr := c.ok("create", "--member", "bot"); !strings.Contains(stderr, "toolsets all,") {
				t.Errorf("token create without --toolsets said %q, want toolsets all", stderr)
			}
			table, _ := c.ok("list")
			if !strings.Contains(table, "TOOLSETS") || !strings.Contains(table, " context,work ") || !strings.Contains(table, " all ") {
				t.Errorf("token list =\n%s\nwant a TOOLSETS column with context,work and all", table)
			}
			out, _ := c.ok("list", "--json")
			var list []struct{ Toolsets []string }
			if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 {
				t.Fatalf("token list --json = %s (%v), want two tokens", out, err)
			}
			if !slices.Equal(list[0].Toolsets, []string{"context", "work"}) || list[1].Toolsets != nil {
				t.Errorf("token list --json toolsets = %v and %v, want [context work] and none", list[0].Toolsets, list[1].Toolsets)
			}
			if _, _, err := c.run("create", "--member", "bot", "--toolsets", "tasks,admin"); err == nil || !strings.Contains(err.Error(), `"admin"`) {
				t.Errorf("token create --toolsets tasks,admin = %v, want an error naming admin", err)
			}
		})
	}
}

// anyStrings returns v, a decoded JSON array, as strings.
func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// TestAdminTokenCreateNamesTheTenant: minted with an admin token and no
// --tenant, the token is on the admin token's tenant, and the command
// says which.
func TestAdminTokenCreateNamesTheTenant(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	var stdout, stderr bytes.Buffer
	args := []string{"admin", "tokens", "create", "--member", "owner", "--url", a.Base, "--token", h.AdminToken(t, "owner")}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("taskwire %s: %v", strings.Join(args, " "), err)
	}
	if !strings.Contains(stderr.String(), "for owner on tenant default,") {
		t.Errorf("tokens create said %q, want it to name the tenant default", stderr.String())
	}
}

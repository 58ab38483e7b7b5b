package admin_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestTokenToolsets: CreateToken limits a token to the toolsets named,
// deduplicated and in catalogue order, ListTokens shows them, and an
// unknown toolset mints nothing.
func TestTokenToolsets(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		adam := e.as(t, "acme/adam")
		created, err := e.svc.CreateToken(adam, &adminv1.CreateTokenRequest{
			Member: "bot", Scopes: []string{"write"}, Toolsets: []string{"work", "comments", "work"},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"comments", "work"}
		if got := created.GetInfo().GetToolsets(); !slices.Equal(got, want) {
			t.Errorf("CreateToken info toolsets = %v, want %v", got, want)
		}
		c, err := e.verifier.Verify(context.Background(), created.GetToken())
		if err != nil || !slices.Equal(c.Toolsets, want) {
			t.Errorf("the minted token names %+v, %v; want toolsets %v", c, err, want)
		}
		if _, err := e.svc.CreateToken(adam, &adminv1.CreateTokenRequest{Member: "mia", Scopes: []string{"read"}}); err != nil {
			t.Fatal(err)
		}

		list, err := e.svc.ListTokens(adam, &adminv1.ListTokensRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, tok := range list.GetTokens() {
			got[tok.GetMember()] = tok.GetToolsets()
		}
		if !slices.Equal(got["bot"], want) || len(got["mia"]) != 0 {
			t.Errorf("ListTokens toolsets = %v, want bot %v and mia none (every toolset)", got, want)
		}

		before := len(list.GetTokens())
		_, err = e.svc.CreateToken(adam, &adminv1.CreateTokenRequest{Member: "bot", Scopes: []string{"read"}, Toolsets: []string{"tasks", "board"}})
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(err.Error(), `"board"`) ||
			!strings.Contains(err.Error(), "context, tasks, comments, work, audit") {
			t.Errorf("CreateToken(toolsets tasks, board) = %v, want invalid, naming board and the known toolsets", err)
		}
		if list, _ := e.svc.ListTokens(adam, &adminv1.ListTokensRequest{}); len(list.GetTokens()) != before {
			t.Errorf("a refused CreateToken left a token: %d tokens, want %d", len(list.GetTokens()), before)
		}
	})
}

// TestMCPTokenCannotManage: an owner's MCP token, even with every scope
// and no toolset limit, cannot use the admin API: only admin tokens
// administer, so an assistant's token never does.
func TestMCPTokenCannotManage(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	mcpToken := e.as(t, "acme/alice", authz.AllScopes...)
	_, err := e.svc.CreateToken(mcpToken, &adminv1.CreateTokenRequest{Member: "alice", Scopes: []string{"write"}})
	want := "This is an MCP token, which cannot administer: use the operator secret or an admin token."
	if domainerr.KindOf(err) != domainerr.Unauthenticated || domainerr.Message(err) != want {
		t.Errorf("CreateToken with an MCP token = %v, want Unauthenticated %q", err, want)
	}
	if _, err := e.svc.ListMembers(mcpToken, &adminv1.ListMembersRequest{}); domainerr.KindOf(err) != domainerr.Unauthenticated {
		t.Errorf("ListMembers with an MCP token = %v, want Unauthenticated", err)
	}
}

package tokens_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestCreateWithToolsets: a token limited to toolsets carries them,
// deduplicated and in catalogue order, and the listing shows them; a token
// without a limit lists none, and an unknown toolset creates nothing.
func TestCreateWithToolsets(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		raw, info, err := e.store.Create(ctx, e.issuer, tokens.CreateRequest{
			Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"write"},
			Toolsets: []string{"comments", "tasks", "comments"},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"tasks", "comments"}
		if !slices.Equal(info.Toolsets, want) {
			t.Errorf("Create toolsets = %v, want %v", info.Toolsets, want)
		}
		if c := e.verify(t, raw); !slices.Equal(c.Toolsets, want) {
			t.Errorf("the token's toolsets = %v, want %v", c.Toolsets, want)
		}
		e.create(t, "acme/alice", "read")

		list, err := e.store.List(ctx, "acme", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || !slices.Equal(list[0].Toolsets, want) || list[1].Toolsets != nil {
			t.Fatalf("List = %+v, want the bot's token limited to %v and alice's unlimited", list, want)
		}
		listed, _ := json.Marshal(list)
		if n := strings.Count(string(listed), `"toolsets"`); n != 1 {
			t.Errorf("listing JSON = %s, want toolsets only on the limited token", listed)
		}

		_, _, err = e.store.Create(ctx, e.issuer, tokens.CreateRequest{
			Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}, Toolsets: []string{"tasks", "boards"},
		})
		if domainerr.KindOf(err) != domainerr.Invalid || !strings.Contains(err.Error(), `"boards"`) {
			t.Errorf("Create(toolsets tasks, boards) = %v, want Invalid naming boards", err)
		}
		if list, _ := e.store.List(ctx, "acme", 0); len(list) != 2 {
			t.Errorf("List after a refused create = %d tokens, want 2", len(list))
		}
	})
}

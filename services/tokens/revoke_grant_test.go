package tokens_test

import (
	"context"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestRevokeGrant: revoking an OAuth grant revokes the tokens issued
// under it, and only those, and tells the front doors of each.
func TestRevokeGrant(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		ctx := context.Background()
		grant := func(id int) tokens.Info {
			_, info, err := e.store.Create(ctx, e.issuer, tokens.CreateRequest{
				Tenant: "acme", Member: e.members["acme/bot"], Scopes: []string{"read"}, Label: "OAuth: Claude", GrantID: id,
			})
			if err != nil {
				t.Fatal(err)
			}
			return info
		}
		a, b, other := grant(7), grant(7), grant(8)
		_, plain := e.create(t, "acme/bot")
		e.events.take()

		n, err := e.store.RevokeGrant(ctx, 7)
		if err != nil || n != 2 {
			t.Fatalf("RevokeGrant = %d, %v; want 2 tokens revoked", n, err)
		}
		for _, tc := range []struct {
			info tokens.Info
			want bool
		}{{a, true}, {b, true}, {other, false}, {plain, false}} {
			if got := e.isRevoked(t, e.store, tc.info.ID); got != tc.want {
				t.Errorf("revoked(%s) = %v, want %v", tc.info.ID, got, tc.want)
			}
		}
		sent := map[string]bool{}
		for _, ev := range e.events.take() {
			sent[ev.JTI] = true
		}
		if len(sent) != 2 || !sent[a.ID] || !sent[b.ID] {
			t.Errorf("published %v, want %s and %s", sent, a.ID, b.ID)
		}
		if n, err := e.store.RevokeGrant(ctx, 7); err != nil || n != 0 {
			t.Errorf("RevokeGrant again = %d, %v; want nothing more", n, err)
		}
	})
}

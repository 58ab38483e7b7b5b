package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// revocationCluster is a cluster with a token store that broadcasts on the
// cluster's NATS, as an admin's revocation does.
func revocationCluster(t testing.TB) (*nodetest.Cluster, *tokens.Store) {
	t.Helper()
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	bus, err := events.New(natstest.Connect(t, c.NATSURL))
	if err != nil {
		t.Fatal(err)
	}
	store, err := tokens.New(tokens.Config{Client: c.DB, Events: bus, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	return c, store
}

// listAt POSTs tools/list with token to front door addr, as sent to the
// cluster's public URL, and returns the HTTP status.
func listAt(t testing.TB, c *nodetest.Cluster, addr, token string) int {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimSuffix(c.Endpoint, "/api/mcp"), "http://")
	return nodetest.ToolsListStatus(t, "http://"+addr+"/api/mcp", host, token)
}

// TestRevocationHoldsEverywhere: revoking a token, or all of a member's,
// makes both front doors answer 401 (they hear it over NATS) and the
// worker refuse it (it reads the database), while other tokens go on.
func TestRevocationHoldsEverywhere(t *testing.T) {
	c, store := revocationCluster(t)
	ctx := context.Background()
	mint := func() (string, string) {
		token, info, err := store.Create(ctx, c.Issuer, tokens.CreateRequest{Tenant: "acme", Member: c.Owner, Scopes: authz.AllScopes})
		if err != nil {
			t.Fatal(err)
		}
		return token, info.ID
	}
	kept, _ := mint()
	stolen, stolenID := mint()
	for _, addr := range c.Fronts {
		if s := listAt(t, c, addr, stolen); s != http.StatusOK {
			t.Fatalf("before revoking: %d at %s, want 200", s, addr)
		}
	}
	if err := store.Revoke(ctx, "acme", stolenID); err != nil {
		t.Fatal(err)
	}
	for _, addr := range c.Fronts {
		poll.Until(t, 10*time.Second, "front door "+addr+" to refuse the revoked token", func() bool {
			return listAt(t, c, addr, stolen) == http.StatusUnauthorized
		})
		if s := listAt(t, c, addr, kept); s != http.StatusOK {
			t.Errorf("another token of the same member at %s: %d, want 200", addr, s)
		}
	}

	// Revoked where no broadcast reaches (a command line without NATS):
	// the front doors have not heard, but the worker reads the database,
	// so the client still gets 401.
	quiet, err := tokens.New(tokens.Config{Client: c.DB, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	unheard, unheardID := mint()
	if err := quiet.Revoke(ctx, "acme", unheardID); err != nil {
		t.Fatal(err)
	}
	for _, addr := range c.Fronts {
		if s := listAt(t, c, addr, unheard); s != http.StatusUnauthorized {
			t.Errorf("a token revoked without a broadcast, at %s: %d, want 401 (the worker refuses it)", addr, s)
		}
	}

	// Removing a member's access: every token of theirs, at once.
	if _, err := store.RevokeMember(ctx, "acme", c.Owner); err != nil {
		t.Fatal(err)
	}
	for _, addr := range c.Fronts {
		poll.Until(t, 10*time.Second, "front door "+addr+" to refuse the member's tokens", func() bool {
			return listAt(t, c, addr, kept) == http.StatusUnauthorized
		})
	}
}

// BenchmarkRevocationToEffect measures the time from a revocation's
// commit to the moment both front doors refuse the token (each polled in
// turn); the README reports it. Run:
//
//	go test ./tests -run '^$' -bench RevocationToEffect -benchtime 200x
func BenchmarkRevocationToEffect(b *testing.B) {
	c, store := revocationCluster(b)
	ctx := context.Background()
	var took []time.Duration
	for b.Loop() {
		b.StopTimer()
		token, info, err := store.Create(ctx, c.Issuer, tokens.CreateRequest{Tenant: "acme", Member: c.Owner, Scopes: authz.AllScopes})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := store.Revoke(ctx, "acme", info.ID); err != nil {
			b.Fatal(err)
		}
		committed := time.Since(start)
		for _, addr := range c.Fronts {
			for listAt(b, c, addr, token) != http.StatusUnauthorized {
			}
		}
		took = append(took, time.Since(start)-committed)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(took[len(took)-1].Microseconds()), "max-µs")
}

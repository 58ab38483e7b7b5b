package tests

import (
	"net/http"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLegacySessionEndHoldsEverywhere: after a client DELETEs its session at
// one front door, the sealed id is refused (404) at the other too.
func TestLegacySessionEndHoldsEverywhere(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	session := legacyInitialize(t, c, c.Fronts[0])
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if resp := legacyPost(t, c, c.Fronts[1], session, ping); resp.Body.Close() != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("ping at the other replica before the end = %d, want 200", resp.StatusCode)
	}

	legacyDelete(t, c, c.Fronts[0], session)
	if resp := legacyPost(t, c, c.Fronts[0], session, ping); resp.Body.Close() != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("ping at the same replica after the end = %d, want 404", resp.StatusCode)
	}
	poll.Until(t, 10*time.Second, "the other replica to refuse the ended session", func() bool {
		resp := legacyPost(t, c, c.Fronts[1], session, ping)
		resp.Body.Close()
		return resp.StatusCode == http.StatusNotFound
	})
}

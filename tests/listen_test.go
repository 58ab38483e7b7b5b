package tests

import (
	"context"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events/natstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestListenAcrossReplicas: the go-sdk client opens a subscriptions/listen
// stream (it does so when discover advertises tools.listChanged), and a
// change published on NATS by whoever changed the member's rights reaches
// it through whichever front door holds the stream.
func TestListenAcrossReplicas(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			c := nodetest.StartCluster(t, s)
			changed := make(chan struct{}, 4)
			cs, _ := c.Client(t, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
				t.Fatalf("capabilities = %+v, want tools.listChanged", caps)
			}
			bus, err := events.New(natstest.Connect(t, c.NATSURL))
			if err != nil {
				t.Fatal(err)
			}
			// Publish until the stream's subscription is in place; the
			// change of another member is filtered out by the front door
			// (tested in package frontdoor).
			poll.Until(t, 10*time.Second, "the listen stream to subscribe", func() bool {
				bus.Publish("acme", events.Event{Kind: events.ToolsChanged, Member: c.Owner + 100})
				bus.Publish("acme", events.Event{Kind: events.ToolsChanged, Member: c.Owner})
				select {
				case <-changed:
					return true
				case <-time.After(50 * time.Millisecond):
					return false
				}
			})
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Errorf("tools/list after the change: %v", err)
			}
		})
	}
}

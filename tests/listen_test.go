package main

import (
	"context"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events/natstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/events"
)

// TestListenAcrossReplicas: the go-sdk client opens a subscriptions/listen
// stream (it does so when discover advertises tools.listChanged), and a
// change published on NATS by whoever changed the member's rights reaches
// it through whichever front door holds the stream.
func TestListenAcrossReplicas(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			c := startCluster(t, s)
			changed := make(chan struct{}, 4)
			cs, _ := c.client(t, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
				t.Fatalf("capabilities = %+v, want tools.listChanged", caps)
			}
			bus, err := events.New(natstest.Connect(t, c.natsURL))
			if err != nil {
				t.Fatal(err)
			}
			// Publish until the stream's subscription is in place; the
			// change of another member is filtered out by the front door
			// (tested in package frontdoor).
			waitFor(t, 10*time.Second, "the listen stream to subscribe", func() bool {
				bus.Publish("acme", events.Event{Kind: events.ToolsChanged, Member: c.owner + 100})
				bus.Publish("acme", events.Event{Kind: events.ToolsChanged, Member: c.owner})
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

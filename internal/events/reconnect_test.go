package events

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
)

// TestNATSRestart: while the server is down, publishing fails at once
// (instead of holding its caller until the connection returns); once it
// is back, every tenant's subscribers are told that the lists may have
// changed, since changes published meanwhile are lost.
func TestNATSRestart(t *testing.T) {
	ns := natstest.StartProcess(t)
	nc, err := nats.Connect(ns.URL, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	b, err := New(nc)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	heard := map[string][]string{}
	for _, tenant := range []string{"acme", "globex"} {
		if _, err := b.Subscribe(tenant, func(ev Event) { mu.Lock(); heard[tenant] = append(heard[tenant], ev.Kind); mu.Unlock() }); err != nil {
			t.Fatal(err)
		}
	}

	ns.Kill()
	poll.Until(t, 5*time.Second, "the connection to notice NATS is gone", func() bool { return !nc.IsConnected() })
	start := time.Now()
	if err := b.Publish("acme", Event{Kind: ToolsChanged}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Publish while NATS is down = %v, want ErrUnreachable", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Publish while NATS is down took %v, want it to fail at once", d)
	}

	ns.Restart()
	want := []string{ToolsChanged, ResourcesChanged, PromptsChanged}
	poll.Until(t, 10*time.Second, "both tenants' subscribers to hear that the lists may have changed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(heard["acme"], want) && slices.Equal(heard["globex"], want)
	})
}

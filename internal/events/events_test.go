package events

import (
	"github.com/taskwire/taskwire/internal/events/natstest"
	"testing"
	"time"
)

func bus(t *testing.T, url string) *Bus {
	b, err := New(natstest.Connect(t, url))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPublishReachesTenantOnly(t *testing.T) {
	url := natstest.URL(t)
	pub, sub := bus(t, url), bus(t, url)
	acme, globex := make(chan Event, 4), make(chan Event, 4)
	stopA, err := sub.Subscribe("acme", func(e Event) { acme <- e })
	if err != nil {
		t.Fatal(err)
	}
	defer stopA()
	stopG, _ := sub.Subscribe("globex", func(e Event) { globex <- e })
	defer stopG()

	if err := pub.Publish("acme", Event{Kind: ToolsChanged, Member: 7}); err != nil {
		t.Fatal(err)
	}
	pub.Publish("globex", Event{Kind: ResourcesChanged})
	select {
	case e := <-acme:
		if e.Kind != ToolsChanged || e.Member != 7 {
			t.Errorf("acme got %+v, want tools change of member 7", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("acme heard nothing")
	}
	select {
	case e := <-globex:
		if e.Kind != ResourcesChanged {
			t.Errorf("globex got %+v first, want only its own resources change", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("globex heard nothing")
	}
	if err := pub.Publish("bad.tenant>", Event{Kind: ToolsChanged}); err == nil {
		t.Error("Publish to a malformed tenant succeeded")
	}
}

// Subscribers of one tenant share one NATS subscription: each hears every
// change while subscribed, none after unsubscribing, and the last to go
// takes the subscription with it.
func TestSubscribersShareOneSubscription(t *testing.T) {
	url := natstest.URL(t)
	pub, sub := bus(t, url), bus(t, url)
	base := sub.nc.NumSubscriptions()
	heard := make([]chan Event, 3)
	stops := make([]func(), 3)
	for i := range heard {
		heard[i] = make(chan Event, 4)
		ch := heard[i]
		stop, err := sub.Subscribe("acme", func(e Event) { ch <- e })
		if err != nil {
			t.Fatal(err)
		}
		stops[i] = stop
	}
	if n := sub.nc.NumSubscriptions() - base; n != 1 {
		t.Errorf("NATS subscriptions for 3 subscribers of one tenant = %d, want 1", n)
	}
	expect := func(ch chan Event, kind string) {
		t.Helper()
		select {
		case e := <-ch:
			if e.Kind != kind {
				t.Errorf("heard %+v, want a %s change", e, kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("heard nothing, want a %s change", kind)
		}
	}
	pub.Publish("acme", Event{Kind: ToolsChanged})
	for _, ch := range heard {
		expect(ch, ToolsChanged)
	}
	stops[0]()
	stops[0]() // twice is harmless
	pub.Publish("acme", Event{Kind: PromptsChanged})
	expect(heard[1], PromptsChanged)
	expect(heard[2], PromptsChanged)
	select {
	case e := <-heard[0]:
		t.Errorf("an unsubscribed subscriber heard %+v", e)
	default:
	}
	stops[1]()
	stops[2]()
	if n := sub.nc.NumSubscriptions() - base; n != 0 {
		t.Errorf("NATS subscriptions after every subscriber left = %d, want 0", n)
	}
	stop, err := sub.Subscribe("acme", func(e Event) { heard[0] <- e })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	pub.Publish("acme", Event{Kind: ResourcesChanged})
	expect(heard[0], ResourcesChanged)
}

// TestChangesCallers: only a tools change (a role change or a removal)
// makes workers forget what they know of callers.
func TestChangesCallers(t *testing.T) {
	for kind, want := range map[string]bool{ToolsChanged: true, ResourcesChanged: false, PromptsChanged: false} {
		if got := (Event{Kind: kind}).ChangesCallers(); got != want {
			t.Errorf("Event{Kind: %q}.ChangesCallers() = %v, want %v", kind, got, want)
		}
	}
}

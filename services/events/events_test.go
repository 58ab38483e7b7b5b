package events

import (
	"github.com/taskwire/taskwire/services/events/natstest"
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

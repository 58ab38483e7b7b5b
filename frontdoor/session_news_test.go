package frontdoor

import (
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events"
)

func TestSessionBook(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := &sessionBook{entries: map[string]sessionEntry{}, now: func() time.Time { return now }}
	later := now.Add(time.Hour).Unix()

	b.learn(events.SessionNews{ID: "a", Expires: later, LogLevel: "info"})
	b.learn(events.SessionNews{ID: "a", Expires: later, Ended: true})
	if e := b.lookup("a"); !e.ended || e.level != "info" {
		t.Errorf("after a level and an end: %+v, want both kept", e)
	}
	b.learn(events.SessionNews{ID: "a", Expires: later, LogLevel: "error"})
	if e := b.lookup("a"); !e.ended || e.level != "error" {
		t.Errorf("a later level: %+v, want it to replace the earlier one and keep the end", e)
	}

	b.learn(events.SessionNews{ID: "old", Expires: now.Add(-time.Second).Unix(), Ended: true})
	if e := b.lookup("old"); e.ended {
		t.Error("news of an expired session was kept")
	}

	now = now.Add(2 * time.Hour) // a's id has expired
	b.learn(events.SessionNews{ID: "b", Expires: now.Add(time.Hour).Unix(), LogLevel: "debug"})
	if len(b.entries) != 1 {
		t.Errorf("book holds %d entries after a's expiry, want only b", len(b.entries))
	}
}

package mailbox

import (
	"github.com/taskwire/taskwire/internal/events/natstest"
	"testing"
	"time"
)

func replica(t *testing.T, url string) *Mailbox {
	m, err := New(natstest.Connect(t, url))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSendReachesHolder: a message sent at one replica reaches the box
// another replica holds, and only that box.
func TestSendReachesHolder(t *testing.T) {
	url := natstest.URL(t)
	a, b := replica(t, url), replica(t, url)
	key := Key("session-1", `7`)
	box, err := b.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	other, err := b.Open(Key("session-1", `8`))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	if err := a.Send(key, []byte("cancel")); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-box.C:
		if string(got) != "cancel" {
			t.Errorf("box received %q, want cancel", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the holder's box received nothing")
	}
	// A marker sent after to the other key arrives there, proving the
	// first message was not delivered to it.
	a.Send(Key("session-1", `8`), []byte("marker"))
	select {
	case got := <-other.C:
		if string(got) != "marker" {
			t.Errorf("the other box received %q first, want only its own marker", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other box received nothing")
	}
}

func TestSendWithoutHolder(t *testing.T) {
	a := replica(t, natstest.URL(t))
	if err := a.Send(Key("gone"), []byte("late")); err != nil {
		t.Errorf("Send to a key nobody holds = %v, want nil (the call may have ended)", err)
	}
	if Key("a", "bc") == Key("ab", "c") {
		t.Error("Key does not separate its parts")
	}
	if _, err := New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

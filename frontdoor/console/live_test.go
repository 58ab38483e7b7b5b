package console

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/poll"
)

func TestLiveEvents(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	srv := httptest.NewServer(e.con)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/t/acme/events", nil)
	req.AddCookie(session)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("GET events = %d %q, want 200 text/event-stream", resp.StatusCode, ct)
	}
	poll.Until(t, 5*time.Second, "the stream subscribes", func() bool { return e.events.subscribers() == 1 })
	e.events.publish("other", events.Event{Kind: events.BoardChanged, Board: "x", Ref: "T-9"})
	e.events.publish("acme", events.Event{Kind: events.ToolsChanged})
	e.events.publish("acme", events.Event{Kind: events.BoardChanged, Board: "main", Ref: "T-1"})
	e.events.publish("acme", events.Event{Kind: events.DecisionsChanged, Ref: "dec1"})
	var got []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && len(got) < 4 {
		if l := sc.Text(); strings.HasPrefix(l, "event:") || strings.HasPrefix(l, "data:") {
			got = append(got, l)
		}
	}
	want := []string{"event: board", `data: {"board":"main","ref":"T-1"}`, "event: decisions", `data: {"ref":"dec1"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the stream sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e.con.Shutdown()
	poll.Until(t, 5*time.Second, "the stream ends on shutdown", func() bool { return e.events.subscribers() == 0 })
}

func TestLiveEventsWithoutBus(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Events = nil })
	session, _ := e.signIn()
	if resp := e.do("GET", "/t/acme/events", nil, session); resp.Code != http.StatusNoContent {
		t.Errorf("GET events without a bus = %d, want 204 (EventSource stops retrying)", resp.Code)
	}
}

// TestLiveEventsEndWithTheSession: a page left open stops hearing the
// tenant once its session was signed out elsewhere.
func TestLiveEventsEndWithTheSession(t *testing.T) {
	saved := liveTimings
	liveTimings.recheck = 20 * time.Millisecond
	t.Cleanup(func() { liveTimings = saved })
	e := newEnv(t, nil)
	session, _ := e.signIn()
	srv := httptest.NewServer(e.con)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/t/acme/events", nil)
	req.AddCookie(session)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	poll.Until(t, 5*time.Second, "the stream subscribes", func() bool { return e.events.subscribers() == 1 })
	e.worker.mu.Lock()
	e.worker.sessions = map[string]bool{}
	e.worker.mu.Unlock()
	poll.Until(t, 5*time.Second, "the stream ends with its session", func() bool { return e.events.subscribers() == 0 })
}

package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/events"
)

// liveTimings are how often a live stream says it is alive (so proxies
// and the server's write deadline see it move) and checks that its
// session still lives (a session signed out elsewhere stops hearing the
// tenant within a minute). Tests shorten them.
var liveTimings = struct{ ping, recheck time.Duration }{25 * time.Second, time.Minute}

// liveEvent is one event of the stream: its SSE name and data.
type liveEvent struct {
	name string
	data []byte
}

// liveEvents streams the tenant's board and decision changes as
// Server-Sent Events ("event: board", "event: decisions"); the page's
// script refreshes what they name. Without an event bus it answers 204,
// which tells EventSource not to reconnect: the pages still work, only
// not live.
func (c *Console) liveEvents(w http.ResponseWriter, r *http.Request, v *visit) {
	if c.cfg.Events == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	ch := make(chan liveEvent, 16)
	unsubscribe, err := c.cfg.Events.Subscribe(v.tenant(), func(ev events.Event) {
		if e, ok := toLive(ev); ok {
			select {
			case ch <- e:
			default: // the page is behind: it refreshes whole anyway
			}
		}
	})
	if err != nil {
		c.log.ErrorContext(r.Context(), "console: subscribing to events", "tenant", v.tenant(), "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer unsubscribe()
	c.stream(w, r, v, ch)
}

// stream writes the events of ch until the client leaves, the console
// shuts down, or the session ends.
func (c *Console) stream(w http.ResponseWriter, r *http.Request, v *visit, ch <-chan liveEvent) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n: connected\n\n")
	if rc.Flush() != nil {
		return
	}
	ping, recheck := time.NewTicker(liveTimings.ping), time.NewTicker(liveTimings.recheck)
	defer ping.Stop()
	defer recheck.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.stop:
			return
		case e := <-ch:
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		case <-recheck.C:
			_, err := c.sessions.CheckSession(r.Context(), &taskwirev1.CheckSessionRequest{Cookie: v.cookie})
			if status.Code(err) == codes.Unauthenticated {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// toLive is the SSE event of ev, if the console shows it.
func toLive(ev events.Event) (liveEvent, bool) {
	var name string
	switch ev.Kind {
	case events.BoardChanged:
		name = "board"
	case events.DecisionsChanged:
		name = "decisions"
	default:
		return liveEvent{}, false
	}
	data, _ := json.Marshal(struct {
		Board string `json:"board,omitempty"`
		Ref   string `json:"ref,omitempty"`
	}{ev.Board, ev.Ref})
	return liveEvent{name, data}, true
}

// Shutdown ends the live streams, so that the server's shutdown is not
// held up by pages left open; their browsers reconnect to another front
// door.
func (c *Console) Shutdown() {
	c.stopOnce.Do(func() { close(c.stop) })
}

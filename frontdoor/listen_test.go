package frontdoor

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/poll"
)

// fakeEvents is an in-memory EventSource; the NATS one is tested with
// internal/events and end to end.
type fakeEvents struct {
	mu   sync.Mutex
	subs map[int]func(events.Event)
	next int
}

func (f *fakeEvents) Subscribe(tenant string, fn func(events.Event)) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[int]func(events.Event){}
	}
	id := f.next
	f.next++
	f.subs[id] = fn
	return func() { f.mu.Lock(); delete(f.subs, id); f.mu.Unlock() }, nil
}

func (f *fakeEvents) publish(e events.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fn := range f.subs {
		fn(e)
	}
}

func (f *fakeEvents) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

func listenHandler(t testing.TB, ev *fakeEvents) (*Handler, *httptest.Server) {
	t.Helper()
	return listenHandlerWith(t, Config{Events: ev})
}

// listenHandlerWith serves cfg with the test endpoint, verifier, tools and
// session key filled in.
func listenHandlerWith(t testing.TB, cfg Config) (*Handler, *httptest.Server) {
	t.Helper()
	cfg.Endpoint, cfg.Verifier, cfg.Tools = testEndpoint, fakeVerifier{}, goldenBackend()
	cfg.SessionKeys, cfg.KeepAlive = [][]byte{testSessionKey}, 20*time.Millisecond
	cfg.Logger = discardLog
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

// sseReader reads a listen stream event by event, noting comments.
type sseReader struct {
	t        *testing.T
	r        *bufio.Reader
	comments int
}

// next returns the data of the next event, validated as a message of
// subscriptions/listen, or "" at the end of the stream.
func (s *sseReader) next() map[string]any {
	s.t.Helper()
	for {
		line, err := s.r.ReadString('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			s.t.Fatalf("reading the stream: %v", err)
		}
		if strings.HasPrefix(line, ":") {
			s.comments++
			continue
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			mcptest.ValidateServerMessage(s.t, []byte(data), "subscriptions/listen")
			var m map[string]any
			json.Unmarshal([]byte(data), &m)
			return m
		}
	}
}

func startListen(t *testing.T, srv *httptest.Server, notifications map[string]any) *sseReader {
	t.Helper()
	req := newCall(t, "L1", "subscriptions/listen", map[string]any{"notifications": notifications}, nil)
	req.RequestURI = ""
	req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(srv.URL, "http://")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("listen = %d %v, want a 200 SSE stream with X-Accel-Buffering: no", resp.StatusCode, resp.Header)
	}
	return &sseReader{t: t, r: bufio.NewReader(resp.Body)}
}

func subscriptionID(m map[string]any) any {
	var meta map[string]any
	if p, ok := m["params"].(map[string]any); ok {
		meta, _ = p["_meta"].(map[string]any)
	} else if r, ok := m["result"].(map[string]any); ok {
		meta, _ = r["_meta"].(map[string]any)
	}
	return meta[mcp.MetaSubscriptionID]
}

func TestListen(t *testing.T) {
	ev := &fakeEvents{}
	h, srv := listenHandler(t, ev)
	s := startListen(t, srv, map[string]any{"toolsListChanged": true, "promptsListChanged": true})

	ack := s.next()
	if ack["method"] != "notifications/subscriptions/acknowledged" || subscriptionID(ack) != "L1" {
		t.Fatalf("first message = %v, want the acknowledgement tagged L1", ack)
	}
	if got := ack["params"].(map[string]any)["notifications"]; len(got.(map[string]any)) != 1 || got.(map[string]any)["toolsListChanged"] != true {
		t.Errorf("acknowledged %v, want only toolsListChanged (this handler serves no prompts)", got)
	}
	if ev.count() != 1 {
		t.Fatalf("%d subscriptions to tenant events, want 1", ev.count())
	}
	ev.publish(events.Event{Kind: events.ToolsChanged, Member: 2}) // someone else
	ev.publish(events.Event{Kind: events.ResourcesChanged})        // not asked for
	ev.publish(events.Event{Kind: events.ToolsChanged, Member: 1}) // the caller
	changed := s.next()
	if changed["method"] != "notifications/tools/list_changed" || subscriptionID(changed) != "L1" {
		t.Errorf("next message = %v, want tools/list_changed tagged L1 and nothing for others' changes", changed)
	}
	for s.comments == 0 { // idle: keep-alive comments flow
		ev.publish(events.Event{Kind: events.ToolsChanged, Member: 1})
		if m := s.next(); m["method"] != "notifications/tools/list_changed" {
			t.Fatalf("unexpected %v", m)
		}
	}

	h.Shutdown()
	end := s.next()
	if r, _ := end["result"].(map[string]any); r["resultType"] != mcp.ResultComplete || subscriptionID(end) != "L1" || end["id"] != "L1" {
		t.Errorf("last message on shutdown = %v, want the listen result tagged L1", end)
	}
	if m := s.next(); m != nil {
		t.Errorf("after the result: %v, want the stream closed", m)
	}
	poll.Until(t, 10*time.Second, "the listen stream to unsubscribe", func() bool { return ev.count() == 0 })
}

// TestListenChangeNotLost: a burst of other members' changes does not
// push out the caller's, and the caller's own burst comes out as few
// notifications as the stream has time to send, not one each.
func TestListenChangeNotLost(t *testing.T) {
	ev := &fakeEvents{}
	_, srv := listenHandler(t, ev)
	s := startListen(t, srv, map[string]any{"toolsListChanged": true})
	if ack := s.next(); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message = %v, want the acknowledgement", ack)
	}
	for range 100 {
		ev.publish(events.Event{Kind: events.ToolsChanged, Member: 2}) // someone else
	}
	ev.publish(events.Event{Kind: events.ToolsChanged, Member: 1})
	if m := s.next(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("after 100 changes of others and one of the caller's: %v, want tools/list_changed", m)
	}
}

// Resources and prompts lists are honoured when served; their changes
// reach every member of the tenant.
func TestListenContentLists(t *testing.T) {
	ev := &fakeEvents{}
	_, srv := listenHandlerWith(t, Config{Events: ev, Resources: fakeContent{}, Prompts: fakeContent{}})
	s := startListen(t, srv, map[string]any{"resourcesListChanged": true, "promptsListChanged": true})
	ack := s.next()
	got, _ := ack["params"].(map[string]any)["notifications"].(map[string]any)
	if len(got) != 2 || got["resourcesListChanged"] != true || got["promptsListChanged"] != true {
		t.Fatalf("acknowledged %v, want resourcesListChanged and promptsListChanged", got)
	}
	ev.publish(events.Event{Kind: events.ToolsChanged}) // not asked for
	ev.publish(events.Event{Kind: events.ResourcesChanged})
	if m := s.next(); m["method"] != "notifications/resources/list_changed" || subscriptionID(m) != "L1" {
		t.Errorf("after a resources change: %v, want resources/list_changed tagged L1 (and nothing for tools)", m)
	}
	ev.publish(events.Event{Kind: events.PromptsChanged})
	if m := s.next(); m["method"] != "notifications/prompts/list_changed" {
		t.Errorf("after a prompts change: %v, want prompts/list_changed", m)
	}
}

func TestListenNothingHonoured(t *testing.T) {
	_, srv := listenHandler(t, &fakeEvents{})
	s := startListen(t, srv, map[string]any{"resourcesListChanged": true})
	if ack := s.next(); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first = %v, want the acknowledgement", ack)
	}
	if end := s.next(); end["result"] == nil {
		t.Errorf("second = %v, want the result at once: nothing asked for is honoured", end)
	}
}

package frontdoor

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/progress"
)

// failsafe bounds every wait on another goroutine, so a bug fails the test
// instead of hanging it.
const failsafe = 10 * time.Second

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failsafe):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

type progressMsg struct {
	Method string
	ID     json.RawMessage
	Params struct {
		ProgressToken json.RawMessage
		Progress      float64
	}
	Result json.RawMessage
}

// TestProgressStream reports from several goroutines at once, then once
// more after the response: the stream must hold only rising progress with
// the token as sent, end with the response, and never grow after it.
func TestProgressStream(t *testing.T) {
	var late progress.Reporter
	b := &fakeBackend{tools: []fakeTool{newTool("crunch", authz.ScopeRead,
		func(_ context.Context, _ json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error) {
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := range 50 {
						report(float64(i*4+g), 200, "")
					}
				})
			}
			wg.Wait()
			late = report
			return textResult("done")
		})}}
	h := newTestHandler(t, b, nil)
	rec := serve(h, newCall(t, "s1", "tools/call", map[string]any{"name": "crunch"}, map[string]any{"progressToken": "tok-🙂"}))

	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	msgs := sseMessages(t, rec.Body.Bytes())
	if len(msgs) < 2 {
		t.Fatalf("got %d messages, want progress then the response", len(msgs))
	}
	last := -1.0
	for i, raw := range msgs {
		mcptest.ValidateServerMessage(t, raw, "tools/call")
		var m progressMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if i == len(msgs)-1 {
			if m.Result == nil || string(m.ID) != `"s1"` {
				t.Errorf("last message = %s, want the response to id s1", raw)
			}
			break
		}
		if m.Method != "notifications/progress" || string(m.Params.ProgressToken) != `"tok-🙂"` || m.Params.Progress <= last {
			t.Errorf("message %d = %s, want progress above %v with token \"tok-🙂\"", i, raw, last)
		}
		last = m.Params.Progress
	}
	size := rec.Body.Len()
	late(1000, 1000, "after the response")
	if rec.Body.Len() != size {
		t.Errorf("a report after the response was written: %q", rec.Body.String()[size:])
	}
}

// TestHangUpWritesNothing cancels the request once the stream has started:
// neither later progress nor the result may be written.
func TestHangUpWritesNothing(t *testing.T) {
	started := make(chan struct{})
	b := &fakeBackend{tools: []fakeTool{newTool("slow", authz.ScopeRead,
		func(ctx context.Context, _ json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error) {
			report(1, 3, "first")
			close(started)
			<-ctx.Done()
			report(2, 3, "after the hang-up")
			return textResult("too late")
		})}}
	sink := newLogSink()
	h := newTestHandler(t, b, slog.New(sink))
	ctx, cancel := context.WithCancel(context.Background())
	req := newCall(t, 1, "tools/call", map[string]any{"name": "slow"}, map[string]any{"progressToken": 5}).WithContext(ctx)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(rec, req)
		close(done)
	}()
	wait(t, started, "the first progress")
	cancel()
	wait(t, done, "ServeHTTP to return")

	if msgs := sseMessages(t, rec.Body.Bytes()); len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"first"`) {
		t.Errorf("stream = %q, want only the first progress", rec.Body.String())
	}
	rec0 := wait(t, sink.records, "the log record")
	if got := attrs(rec0)["outcome"]; got != "cancelled" {
		t.Errorf("outcome = %q, want cancelled", got)
	}
}

// TestHangUpCancelsCall closes a real connection mid-stream: the backend's
// context must end, which is how a tools/call is cancelled over HTTP.
func TestHangUpCancelsCall(t *testing.T) {
	cancelled := make(chan error, 1)
	b := &fakeBackend{tools: []fakeTool{newTool("slow", authz.ScopeRead,
		func(ctx context.Context, _ json.RawMessage, report progress.Reporter) (*mcp.CallToolResult, error) {
			report(1, 0, "working")
			<-ctx.Done()
			cancelled <- ctx.Err()
			return nil, ctx.Err()
		})}}
	sink := newLogSink()
	srv := httptest.NewServer(newTestHandler(t, b, slog.New(sink)))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := newCall(t, 1, "tools/call", map[string]any{"name": "slow"}, map[string]any{"progressToken": "p"})
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/mcp", req.Body)
	if err != nil {
		t.Fatal(err)
	}
	out.Header = req.Header
	res, err := srv.Client().Do(out)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != "event: message\n" {
		t.Fatalf("first line %q, %v; want an SSE event", line, err)
	}
	cancel() // the client hangs up
	res.Body.Close()

	if err := wait(t, cancelled, "the call's context to end"); err == nil {
		t.Error("the call's context ended without an error")
	}
	if got := attrs(wait(t, sink.records, "the log record"))["outcome"]; got != "cancelled" {
		t.Errorf("outcome = %q, want cancelled", got)
	}
}

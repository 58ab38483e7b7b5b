package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestChaosPlan(t *testing.T) {
	c := soakConfig{dur: time.Minute}
	soakDefaults(&c)
	var got []string
	for _, s := range chaosPlan(c.dur, c.workerEvery, c.natsAt) {
		if s.nats {
			got = append(got, fmt.Sprintf("%s nats", s.at))
		} else {
			got = append(got, fmt.Sprintf("%s w%d %s", s.at, s.worker+1, sigName(s.sig)))
		}
	}
	if want := "20s w1 SIGTERM, 30s nats, 40s w2 SIGKILL"; strings.Join(got, ", ") != want {
		t.Errorf("60 s plan = %s, want %s", strings.Join(got, ", "), want)
	}
	c = soakConfig{dur: 30 * time.Minute}
	soakDefaults(&c)
	plan := chaosPlan(c.dur, c.workerEvery, c.natsAt)
	restarts, sigs := 0, map[string]int{}
	for _, s := range plan {
		if s.nats {
			if s.at != 15*time.Minute {
				t.Errorf("30 m: NATS at %s, want 15m", s.at)
			}
			continue
		}
		restarts++
		sigs[fmt.Sprintf("w%d %s", s.worker+1, sigName(s.sig))]++
	}
	if restarts != 14 || c.window != time.Minute {
		t.Errorf("30 m: %d worker restarts, window %s; want 14 and 1m", restarts, c.window)
	}
	for _, k := range []string{"w1 SIGTERM", "w1 SIGKILL", "w2 SIGTERM", "w2 SIGKILL"} {
		if sigs[k] == 0 {
			t.Errorf("30 m plan has no %s: %v", k, sigs)
		}
	}
	// NATS is moved off a worker restart.
	c = soakConfig{dur: 8 * time.Minute}
	soakDefaults(&c)
	if c.natsAt != 5*time.Minute {
		t.Errorf("8 m: NATS at %s, want 5m (the middle, 4m, is a worker restart)", c.natsAt)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err       error
		kind      string
		retryable bool
	}{
		{nil, "", false},
		{&toolError{text: "The board is temporarily unavailable. Try again in a moment."}, kindUnavailable, true},
		{&toolError{text: "no task T-9"}, kindToolError, false},
		{&rpcError{code: -32603, message: "internal error"}, "JSON-RPC -32603", true},
		{&rpcError{code: -32602, message: "invalid params"}, "JSON-RPC -32602", false},
		{&httpError{status: 503}, "HTTP 503", true},
		{&httpError{status: 401}, "HTTP 401", false},
		{fmt.Errorf("post: %w", io.ErrUnexpectedEOF), kindTransport, true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), kindTransport, true},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), kindHung, true},
		{errors.New("progress went from 2 to 1"), kindOther, true},
	} {
		if got := classify(tc.err); got != tc.kind {
			t.Errorf("classify(%v) = %q, want %q", tc.err, got, tc.kind)
		}
		if got := retryable(tc.err); tc.err != nil && got != tc.retryable {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.retryable)
		}
	}
	if got := backoff(&httpError{status: 503, retryAfter: "1"}, 0); got != time.Second {
		t.Errorf("backoff with Retry-After: 1 = %s, want 1s", got)
	}
	if got := backoff(errors.New("x"), 10); got != 2*time.Second {
		t.Errorf("backoff of the 11th retry = %s, want 2s", got)
	}
}

func TestCompareWrites(t *testing.T) {
	have := map[string][]int{"a": {1}, "b": {2, 3}, "c": {4}, "x": {9}}
	acked := map[string]string{"a": "T-1", "b": "T-2", "c": "T-5", "d": "T-6"}
	v := compareWrites(have, acked)
	// c answered T-5 but the task is T-4; d is missing; b is there twice;
	// x was written though never acknowledged.
	if v.Found != 5 || v.Lost != 2 || v.Duplicated != 1 || v.Unacknowledged != 1 {
		t.Errorf("compareWrites = %+v, want found 5, lost 2, duplicated 1, unacknowledged 1", v)
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 61
go_gc_duration_seconds{quantile="0"} 1.2e-05
process_resident_memory_bytes 7.9691776e+07
`
	s, err := parseMetrics(bufio.NewScanner(strings.NewReader(text)))
	if err != nil || s.Goroutines != 61 || s.RSSMB < 75.9 || s.RSSMB > 76.1 {
		t.Errorf("parseMetrics = %+v, %v; want 61 goroutines, 76 MB", s, err)
	}
	if _, err := parseMetrics(bufio.NewScanner(strings.NewReader("go_goroutines 3\n"))); err == nil {
		t.Error("metrics without the resident memory parsed without error")
	}
}

func TestSoakWindows(t *testing.T) {
	outs := []outcome{
		{at: 1 * time.Second, op: "tasks_get", lat: 2 * time.Millisecond},
		{at: 2 * time.Second, op: "tasks_create", lat: 10 * time.Millisecond},
		{at: 12 * time.Second, op: "tasks_create", lat: 5 * time.Millisecond, kind: kindUnavailable},
		{at: 13 * time.Second, op: "subscriptions/listen", kind: kindListenEnded},
		{at: 14 * time.Second, op: "tasks_import", lat: 90 * time.Millisecond, short: true},
		{at: 21 * time.Second, op: "tasks_create", lat: 30 * time.Millisecond}, // after the end
	}
	wins := soakWindows(outs, []soakEvent{{At: 11 * time.Second, What: "worker-1 SIGKILL: exited"}}, 10*time.Second, 20*time.Second)
	if len(wins) != 2 {
		t.Fatalf("%d windows, want 2", len(wins))
	}
	w0, w1 := wins[0], wins[1]
	if w0.Calls != 2 || w0.Errors != 0 || w0.ReadP99 != 2 || w0.CreateP99 != 10 {
		t.Errorf("window 0 = %+v", w0)
	}
	if w1.Calls != 3 || w1.Errors != 2 || w1.Short != 1 || w1.ImportP99 != 90 || w1.CreateP99 != 30 ||
		strings.Join(w1.Events, ";") != "worker-1 SIGKILL" {
		t.Errorf("window 1 = %+v", w1)
	}
}

// TestImportJSONAnswer: a front door that cannot relay progress answers
// tasks_import with a JSON body, not a stream; that is an answer, short of
// every notification, not a cut connection.
func TestImportJSONAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Imported 40 tasks"}]}}`)
	}))
	defer srv.Close()
	res, err := newClient(srv.URL, "t", 1).importOnce(context.Background(), 1, 40, "json", importOpts{})
	if err != nil || res.notifications != 0 || res.lost != 4 {
		t.Errorf("importOnce of a JSON answer = %+v, %v; want no error, 0 notifications, 4 lost", res, err)
	}
}

// TestImportNotRelayed: a front door that could not relay an import's
// progress says so in a progress notification, whose progress may be 0 when
// none came before: the import succeeds with a warning, not with "progress
// went from 0 to 0".
func TestImportNotRelayed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0,"message":"progress for this call could not be relayed: the message bus is unreachable; the result is unaffected"}}`+"\n\n")
		io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Imported 40 tasks"}]}}`+"\n\n")
	}))
	defer srv.Close()
	res, err := newClient(srv.URL, "t", 1).importOnce(context.Background(), 1, 40, "relay", importOpts{})
	if err != nil || res.notifications != 0 || res.warnings != 1 {
		t.Errorf("importOnce of an answer saying progress was not relayed = %+v, %v; want no error, 0 notifications, 1 warning", res, err)
	}
}

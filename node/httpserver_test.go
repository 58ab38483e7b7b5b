package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// cutoffFailsafe bounds every wait for the server to cut a client off, so
// that a missing limit fails the test instead of hanging it.
const cutoffFailsafe = 10 * time.Second

func TestHTTPServerLimits(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler(), nil)
	if srv.WriteTimeout != 0 {
		t.Errorf("WriteTimeout = %v, want 0: it would cut long SSE streams", srv.WriteTimeout)
	}
	if srv.ReadHeaderTimeout != readHeaderTimeout || srv.ReadTimeout != readTimeout || srv.IdleTimeout != idleTimeout {
		t.Errorf("timeouts (header, read, idle) = %v, %v, %v; want %v, %v, %v",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout, readHeaderTimeout, readTimeout, idleTimeout)
	}
	if httpTimeouts.writeStall != writeStall {
		t.Errorf("write stall = %v, want %v", httpTimeouts.writeStall, writeStall)
	}
	if srv.MaxHeaderBytes != maxHeaderBytes {
		t.Errorf("MaxHeaderBytes = %d, want %d", srv.MaxHeaderBytes, maxHeaderBytes)
	}
}

// TestDropAbandoned checks which responses dropAbandoned turns into a
// dropped connection: only those of requests whose context ended before
// the handler wrote anything.
func TestDropAbandoned(t *testing.T) {
	silent := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	flushing := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush through dropAbandoned: %v", err)
		}
	})
	for _, tt := range []struct {
		name      string
		h         http.Handler
		cancelled bool
		wantDrop  bool
	}{
		{"silent, client gone", silent, true, true},
		{"silent, client there", silent, false, false},
		{"flushed, client gone", flushing, true, false},
		{"flushed, client there", flushing, false, false},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		if tt.cancelled {
			cancel()
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/mcp", nil)
		dropped := func() (dropped bool) {
			defer func() {
				if p := recover(); p != nil {
					dropped = p == http.ErrAbortHandler
				}
			}()
			dropAbandoned(tt.h, time.Minute).ServeHTTP(httptest.NewRecorder(), req)
			return false
		}()
		cancel()
		if dropped != tt.wantDrop {
			t.Errorf("%s: dropped = %v, want %v", tt.name, dropped, tt.wantDrop)
		}
	}
}

// TestStalledReader is a client that sends a request, then never reads
// the answer while keeping the connection open: the write that stalls
// fails after the write stall timeout, so the handler is not held forever.
// The stream moves in small writes first, to show that only a stalled
// write is cut, not a long response.
func TestStalledReader(t *testing.T) {
	shortenTimeouts(t, time.Minute, time.Minute)
	httpTimeouts.writeStall = 200 * time.Millisecond
	failed := make(chan error, 1)
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := make([]byte, 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
			if err := http.NewResponseController(w).Flush(); err != nil {
				failed <- err
				return
			}
		}
	}), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	conn, _ := dial(t, "http://"+ln.Addr().String())
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the stalled write failed with %v, want the write deadline", err)
		}
	case <-time.After(cutoffFailsafe):
		t.Fatalf("a write to a client that does not read was still blocked after %v", cutoffFailsafe)
	}
}

// TestHeaderLimit sends headers just under and well over MaxHeaderBytes.
// net/http allows 4 KiB of slack above the limit, so "over" adds more.
func TestHeaderLimit(t *testing.T) {
	h := startHarness(t, setups()[0])
	for _, tt := range []struct {
		size int
		want func(int) bool
		what string
	}{
		{maxHeaderBytes / 2, func(s int) bool { return s == http.StatusUnauthorized }, "401 (no token)"},
		{maxHeaderBytes + 16<<10, func(s int) bool { return s == http.StatusRequestHeaderFieldsTooLarge }, "431"},
	} {
		req, err := http.NewRequest(http.MethodPost, h.sys.Endpoint, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Padding", strings.Repeat("a", tt.size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST with %d header bytes: %v", tt.size, err)
		}
		res.Body.Close()
		if !tt.want(res.StatusCode) {
			t.Errorf("POST with %d header bytes: status %d, want %s", tt.size, res.StatusCode, tt.what)
		}
	}
}

// TestSlowHeaders is a slowloris: a client that keeps sending header bytes,
// too slowly to ever finish, is cut off once ReadHeaderTimeout has passed.
func TestSlowHeaders(t *testing.T) {
	shortenTimeouts(t, 200*time.Millisecond, time.Minute)
	h := startHarness(t, setups()[0])
	conn, start := dial(t, h.sys.Endpoint)
	if _, err := fmt.Fprintf(conn, "POST /api/mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", conn.RemoteAddr()); err != nil {
		t.Fatal(err)
	}
	dribble(t, conn, "a")
	n, err := io.Copy(io.Discard, conn)
	if n != 0 {
		t.Errorf("the server answered %d bytes, want none (net/http closes on a header timeout)", n)
	}
	checkCut(t, err, time.Since(start), httpTimeouts.readHeader)
}

// TestSlowBody sends complete headers, then the body too slowly: the
// request is cut off once ReadTimeout has passed, without the empty 200
// net/http would send for the handler, which gave up on it.
func TestSlowBody(t *testing.T) {
	shortenTimeouts(t, time.Minute, 300*time.Millisecond)
	h := startHarness(t, setups()[0])
	conn, start := dial(t, h.sys.Endpoint)
	head := "POST /api/mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
	if _, err := fmt.Fprintf(conn, head, conn.RemoteAddr(), h.token); err != nil {
		t.Fatal(err)
	}
	dribble(t, conn, " ")
	n, err := io.Copy(io.Discard, conn)
	if n != 0 {
		t.Errorf("the server answered %d bytes, want none (the request was abandoned)", n)
	}
	checkCut(t, err, time.Since(start), httpTimeouts.read)
}

// shortenTimeouts sets the header and whole-request read timeouts of the
// servers a test starts, restoring them after.
func shortenTimeouts(t *testing.T, header, read time.Duration) {
	saved := httpTimeouts
	t.Cleanup(func() { httpTimeouts = saved })
	httpTimeouts.readHeader, httpTimeouts.read = header, read
}

// dial opens a raw TCP connection to the endpoint's host, and returns it
// with the time it opened, which is no later than the server's first read.
// Reads on it fail after cutoffFailsafe.
func dial(t *testing.T, endpoint string) (net.Conn, time.Time) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetReadDeadline(start.Add(cutoffFailsafe)); err != nil {
		t.Fatal(err)
	}
	return conn, start
}

// dribble writes s to conn every 20 ms, as a slow client does, until the
// server hangs up or the test ends.
func dribble(t *testing.T, conn net.Conn, s string) {
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(conn, s); err != nil {
					return
				}
			}
		}
	}()
}

// checkCut checks that the server ended the connection, and not before
// limit had passed since it opened. err is what ended reading: nil (EOF)
// or a reset, since the client was still writing, mean the server closed
// it; the client's own deadline means it did not.
func checkCut(t *testing.T, err error, elapsed, limit time.Duration) {
	t.Helper()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server did not cut the slow client off within %v (limit %v)", cutoffFailsafe, limit)
	}
	if elapsed < limit {
		t.Errorf("the slow client was cut off after %v, before the limit of %v", elapsed, limit)
	}
	t.Logf("cut off after %v (limit %v): %v", elapsed, limit, err)
}

package node_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestHeaderLimit sends headers just under and well over MaxHeaderBytes.
// net/http allows 4 KiB of slack above the limit, so "over" adds more.
func TestHeaderLimit(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	for _, tt := range []struct {
		size int
		want func(int) bool
		what string
	}{
		{node.MaxHeaderBytes / 2, func(s int) bool { return s == http.StatusUnauthorized }, "401 (no token)"},
		{node.MaxHeaderBytes + 16<<10, func(s int) bool { return s == http.StatusRequestHeaderFieldsTooLarge }, "431"},
	} {
		req, err := http.NewRequest(http.MethodPost, h.Sys.Endpoint, strings.NewReader("{}"))
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
	node.ShortenTimeouts(t, 200*time.Millisecond, time.Minute)
	h := nodetest.Start(t, nodetest.Setups()[0])
	conn, start := node.Dial(t, h.Sys.Endpoint)
	if _, err := fmt.Fprintf(conn, "POST /api/mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", conn.RemoteAddr()); err != nil {
		t.Fatal(err)
	}
	dribble(t, conn, "a")
	n, err := io.Copy(io.Discard, conn)
	if n != 0 {
		t.Errorf("the server answered %d bytes, want none (net/http closes on a header timeout)", n)
	}
	checkCut(t, err, time.Since(start), node.ReadHeaderTimeout())
}

// TestSlowBody sends complete headers, then the body too slowly: the
// request is cut off once ReadTimeout has passed, without the empty 200
// net/http would send for the handler, which gave up on it.
func TestSlowBody(t *testing.T) {
	node.ShortenTimeouts(t, time.Minute, 300*time.Millisecond)
	h := nodetest.Start(t, nodetest.Setups()[0])
	conn, start := node.Dial(t, h.Sys.Endpoint)
	head := "POST /api/mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
	if _, err := fmt.Fprintf(conn, head, conn.RemoteAddr(), h.Token); err != nil {
		t.Fatal(err)
	}
	dribble(t, conn, " ")
	n, err := io.Copy(io.Discard, conn)
	if n != 0 {
		t.Errorf("the server answered %d bytes, want none (the request was abandoned)", n)
	}
	checkCut(t, err, time.Since(start), node.ReadTimeout())
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
		t.Fatalf("the server did not cut the slow client off within %v (limit %v)", node.CutoffFailsafe, limit)
	}
	if elapsed < limit {
		t.Errorf("the slow client was cut off after %v, before the limit of %v", elapsed, limit)
	}
	t.Logf("cut off after %v (limit %v): %v", elapsed, limit, err)
}

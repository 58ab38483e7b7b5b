package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
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
	ShortenTimeouts(t, time.Minute, time.Minute)
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
	conn, _ := Dial(t, "http://"+ln.Addr().String())
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

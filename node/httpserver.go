package node

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// The limits of the front door's HTTP server. They bound what a client
// can hold without sending a request: a slow client (slowloris) ties up
// a connection and a goroutine for at most ReadHeaderTimeout while sending
// headers, ReadTimeout while sending its body, and IdleTimeout between
// requests.
//
// There is deliberately no WriteTimeout. It would bound the whole response,
// and a tools/call that reports progress answers with an SSE stream that
// may run for minutes (an import); cutting it would lose the result of
// work already done. Instead each write must finish within writeStall
// (dropAbandoned sets the deadline anew before each one), so a client that
// stops reading but keeps the connection open cannot hold a handler
// forever, while a stream that keeps moving runs as long as it needs.
//
// ReadTimeout does not cut such streams either: net/http clears the read
// deadline once the body has been read.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second // headers and body: MaxBodyBytes at a slow but honest rate
	idleTimeout       = 120 * time.Second
	writeStall        = 30 * time.Second
	maxHeaderBytes    = 64 << 10 // a bearer token and the MCP headers need a few KiB
)

// httpTimeouts are the timeouts newHTTPServer uses. Tests shorten them
// so that a slow client is cut off in milliseconds.
var httpTimeouts = struct {
	readHeader, read, idle, writeStall time.Duration
}{readHeaderTimeout, readTimeout, idleTimeout, writeStall}

// newHTTPServer returns the front door's server for h, with its limits;
// track sees every connection state change (see newConns).
func newHTTPServer(h http.Handler, track func(net.Conn, http.ConnState)) *http.Server {
	return &http.Server{
		Handler:           dropAbandoned(h, httpTimeouts.writeStall),
		ReadHeaderTimeout: httpTimeouts.readHeader,
		ReadTimeout:       httpTimeouts.read,
		IdleTimeout:       httpTimeouts.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         track,
		Protocols:         protocols(),
	}
}

// protocols are HTTP/1.1 and HTTP/2 without TLS (prior knowledge only):
// gRPC clients of the admin API (grpcurl -plaintext, grpc-go) reach the
// front door's port that way. TLS, where used, ends in front of it.
func protocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// dropAbandoned closes the connection of a request that h abandoned: one
// whose context ended before h wrote anything. net/http ends the context
// when the client hangs up, and also when reading the body fails, as it
// does when ReadTimeout passes; h then rightly sends nothing, and net/http
// would finish the response itself as an empty 200, which a slow client
// still listening would take for a success. It is cut off instead, as
// net/http cuts off a client whose headers are too slow.
//
// It also gives each write of the response stall to finish, and clears
// the deadline the previous response on the connection left.
func dropAbandoned(h http.Handler, stall time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &touchedWriter{ResponseWriter: w, stall: stall}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		h.ServeHTTP(tw, r)
		if !tw.touched.Load() && r.Context().Err() != nil {
			panic(http.ErrAbortHandler) // net/http closes the connection, logging nothing
		}
	})
}

// touchedWriter records whether a response was begun, and moves the write
// deadline before each write. Unwrap lets http.ResponseController reach
// the connection's deadlines.
type touchedWriter struct {
	http.ResponseWriter
	stall   time.Duration
	touched atomic.Bool
}

// touch marks the response begun and gives the next write stall to finish.
// The deadline also covers the flush net/http makes after the handler.
func (w *touchedWriter) touch() {
	w.touched.Store(true)
	if w.stall > 0 {
		_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.stall))
	}
}

func (w *touchedWriter) WriteHeader(code int) {
	w.touch()
	w.ResponseWriter.WriteHeader(code)
}

func (w *touchedWriter) Write(b []byte) (int, error) {
	w.touch()
	return w.ResponseWriter.Write(b)
}

// FlushError begins the response too, when nothing was written yet.
func (w *touchedWriter) FlushError() error {
	w.touch()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *touchedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// newConns tracks the connections of an http.Server that have not yet sent
// a request. http.Server.Shutdown treats such a connection as busy for its
// first 5 seconds, so a client that opened a spare connection would hold
// every shutdown for that long although no request can be lost on it.
type newConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (n *newConns) track(c net.Conn, state http.ConnState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conns == nil {
		n.conns = map[net.Conn]struct{}{}
	}
	if state == http.StateNew {
		n.conns[c] = struct{}{}
	} else {
		delete(n.conns, c)
	}
}

func (n *newConns) closeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		c.Close()
	}
}

// shutdownHTTP stops srv accepting, closes its idle and request-less
// connections, and waits for requests in flight until ctx ends.
func shutdownHTTP(ctx context.Context, srv *http.Server, idle *newConns) error {
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	// Repeat until Shutdown returns: a connection accepted just before the
	// listener closed is new too.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		idle.closeAll()
		select {
		case err := <-done:
			return err
		case <-tick.C:
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// bridge relays MCP between a client on stdio and a Taskwire endpoint over
// Streamable HTTP. Each request runs in its own goroutine, so a slow call
// holds up nothing; replies go out as they complete.
type bridge struct {
	cfg Config
	up  *upstream
	out *output
	log *slog.Logger

	// calls is the context of every call; stopCalls ends those still
	// running when the bridge exits. Listen streams never end by
	// themselves, so they get their own, ended as soon as stdin closes.
	calls, listens         context.Context
	stopCalls, stopListens context.CancelFunc

	mu       sync.Mutex
	inflight map[string]*call // by idKey
	wg       sync.WaitGroup   // calls and forwarded notifications

	// initializing is closed once the legacy session's initialize has
	// its answer; nil when none is pending. Only the reader of stdin
	// touches it.
	initializing chan struct{}
	initKey      string // idKey of that initialize
}

// newBridge returns a bridge for cfg, writing to stdout. A nil Logger is a
// bug of the caller, not a configuration a person can fix (those the
// bridge answers every request with), so it panics.
func newBridge(cfg Config, stdout io.Writer) *bridge {
	if cfg.Logger == nil {
		panic("taskwire-bridge: Config.Logger is required")
	}
	cfg = cfg.withDefaults()
	b := &bridge{
		cfg:      cfg,
		up:       &upstream{url: cfg.URL, token: cfg.Token, agent: cfg.UserAgent, client: cfg.HTTPClient},
		out:      &output{w: stdout, log: cfg.Logger},
		log:      cfg.Logger,
		inflight: map[string]*call{},
	}
	b.calls, b.stopCalls = context.WithCancel(context.Background())
	b.listens, b.stopListens = context.WithCancel(b.calls)
	return b
}

// run relays stdin until it ends, then lets the calls in flight finish
// (up to cfg.Drain) and returns. If ctx ends first (a signal), it stops
// at once.
func (b *bridge) run(ctx context.Context, stdin io.Reader) {
	read := make(chan struct{})
	go func() {
		defer close(read)
		b.readLines(stdin)
	}()
	select {
	case <-read:
		b.drain()
	case <-ctx.Done():
		b.log.Info("stopping", "reason", context.Cause(ctx))
		b.stopCalls()
		b.out.close()
	}
}

// readLines hands each line of stdin to handle. Lines may be long (an
// import of a thousand tasks), so no line limit applies here; the server
// has one.
func (b *bridge) readLines(stdin io.Reader) {
	r := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			b.handle(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.log.Warn("reading standard input failed", "err", err)
			}
			return
		}
	}
}

// handle routes one message: requests start a call, notifications/cancelled
// cancels one, other notifications and responses are posted.
func (b *bridge) handle(line []byte) {
	defer b.survive(nil)
	m, err := parseMessage(line)
	var bad errBadLine
	switch {
	case errors.Is(err, errNotJSON):
		b.out.write(errorLine(nil, jsonrpc.Error{Code: jsonrpc.ParseError, Message: err.Error()}))
		return
	case errors.As(err, &bad):
		var id []byte
		if validID(m.id) {
			id = m.id
		}
		b.out.write(errorLine(id, jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: bad.msg}))
		return
	}
	if b.cfg.err != nil {
		if m.kind == request {
			b.out.write(errorLine(m.id, jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: "taskwire-bridge is not configured: " + b.cfg.err.Error()}))
		}
		return
	}
	b.awaitSession(m)
	switch m.kind {
	case request:
		b.start(m)
	case notification:
		b.notify(m)
	case response:
		b.forward(m)
	}
}

// awaitSession holds a legacy message read while the session's
// initialize is unanswered, until its answer has arrived: only then is the
// session id known, which every later message of the session must carry.
// A client may write initialize and the lines after it at once (piping a
// file), and they would race ahead of the session otherwise. Holding the
// reader keeps them in order; modern messages need no session and are not
// held, nor is the cancellation of the initialize itself.
func (b *bridge) awaitSession(m *message) {
	if b.initializing == nil || b.up.eraOf(m).modern {
		return
	}
	if key, ok := m.cancelledID(); ok && key == b.initKey {
		return
	}
	<-b.initializing
	b.initializing = nil
}

// start runs a request in its own goroutine. A second request with the id
// of one still in flight is refused, as MCP forbids reusing such an id.
func (b *bridge) start(m *message) {
	ctx := b.calls
	if m.method == "subscriptions/listen" {
		ctx = b.listens
	}
	c := &call{b: b, msg: m, key: idKey(m.id), era: b.up.eraOf(m)}
	c.ctx, c.hangUp = context.WithCancel(ctx)
	answered := func() {}
	if m.method == "initialize" {
		gate := make(chan struct{})
		b.initializing, b.initKey, answered = gate, c.key, sync.OnceFunc(func() { close(gate) })
	}
	b.mu.Lock()
	_, dup := b.inflight[c.key]
	if !dup {
		b.inflight[c.key] = c
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if dup {
		c.hangUp()
		answered()
		b.out.write(errorLine(m.id, jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("invalid request: id %s is already in flight; use a new id for each request", c.key)}))
		return
	}
	go func() {
		defer b.wg.Done()
		defer answered() // by now the session id, if any, is set
		defer b.retire(c)
		defer b.survive(c)
		c.run()
	}()
}

// survive keeps a bug in handling one message from ending the bridge,
// and the client's other calls with it; the call it hit, if any, still
// gets a reply.
func (b *bridge) survive(c *call) {
	r := recover()
	if r == nil {
		return
	}
	b.log.Error("bug: handling a message panicked", "panic", r)
	if c != nil {
		c.fail(jsonrpc.Error{Code: jsonrpc.Internal, Message: "taskwire-bridge failed on this call (a bug; its log on standard error has the details)"})
	}
}

// retire forgets a call whose reply is going out.
func (b *bridge) retire(c *call) {
	b.mu.Lock()
	if b.inflight[c.key] == c {
		delete(b.inflight, c.key)
	}
	b.mu.Unlock()
}

// notify handles a notification. notifications/cancelled closes the
// call's stream, the 2026-07-28 cancellation; a legacy session's server
// also routes the notification itself to wherever the call runs, so it is
// forwarded too. An unknown or finished call's cancellation is dropped.
func (b *bridge) notify(m *message) {
	key, ok := m.cancelledID()
	if !ok {
		b.forward(m)
		return
	}
	b.mu.Lock()
	c := b.inflight[key]
	delete(b.inflight, key)
	b.mu.Unlock()
	if c == nil {
		b.log.Debug("ignored the cancellation of a call not in flight", "id", key)
		return
	}
	c.cancel()
	if !c.era.modern {
		b.forward(m)
	}
}

// forward posts a notification or a client's response, which owe the
// client nothing: a 202 writes nothing, and a refusal can only be logged.
func (b *bridge) forward(m *message) {
	e := b.up.eraOf(m)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		resp, err := b.up.post(b.calls, m, e)
		if err != nil {
			b.log.Warn("could not pass a message on", "method", m.method, "err", unreachable(b.up.url, err).Message)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			b.log.Warn("the server refused a message", "method", m.method, "status", resp.StatusCode, "body", clip(string(body), 256))
		}
	}()
}

// drain runs once stdin has ended: listen streams close, the calls in
// flight get up to cfg.Drain to finish, and any still running then get an
// error reply. A legacy session is ended last.
func (b *bridge) drain() {
	b.stopListens()
	done := make(chan struct{})
	go func() {
		b.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(b.cfg.Drain):
		b.giveUp()
	}
	b.out.close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	b.up.endSession(ctx)
	b.stopCalls()
}

// giveUp replies to every call still in flight with an error, then closes
// their streams.
func (b *bridge) giveUp() {
	b.mu.Lock()
	calls := make([]*call, 0, len(b.inflight))
	for _, c := range b.inflight {
		calls = append(calls, c)
	}
	b.mu.Unlock()
	for _, c := range calls {
		b.log.Warn("gave up on a call still running at exit", "id", c.key, "method", c.msg.method)
		c.giveUp(jsonrpc.Error{Code: jsonrpc.Internal, Message: fmt.Sprintf(
			"taskwire-bridge is exiting (standard input closed) and the call did not finish within %s; it was cancelled", b.cfg.Drain)})
	}
}

// newHTTPClient is the client of the endpoint: no overall timeout, since
// calls and listen streams may last long, but a bounded connect, so an
// unreachable server is reported instead of waited for.
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: t}
}

package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"sync"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// responder writes the one response of a request: a JSON body, or, once a
// progress notification has gone out, an SSE stream of notifications that
// ends with the response. A ToolBackend may report progress from any
// goroutine, and even after CallTool returned, so every write holds mu and
// checks closed: nothing is written after the response, after the client
// left, or after ServeHTTP returned.
type responder struct {
	w   http.ResponseWriter
	ctx context.Context

	mu     sync.Mutex
	closed bool            // the response is complete or abandoned
	stream bool            // the SSE stream has begun; the status is 200
	status int             // the status sent, 0 while none
	final  bool            // the response went out
	token  json.RawMessage // the request's progressToken, as sent
	sent   int             // progress notifications sent
	last   float64         // the progress of the last one

	// opened and progressed, when set, tell an Observer that the stream
	// began and that a progress notification went out.
	opened, progressed func()
}

func newResponder(w http.ResponseWriter, ctx context.Context) *responder {
	return &responder{w: w, ctx: ctx}
}

// finish sends the final message: as the last SSE event if the stream has
// begun (its status can no longer change), else as a JSON body with status
// and header.
func (o *responder) finish(status int, header http.Header, body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.writable() {
		return
	}
	o.closed = true
	if o.stream {
		o.final = o.event(body)
		return
	}
	for k, v := range header {
		o.w.Header()[k] = v
	}
	o.w.Header().Set("Content-Type", "application/json")
	o.w.WriteHeader(status)
	o.status = status
	_, err := o.w.Write(body)
	o.final = err == nil
}

// accept answers a notification: 202 and no body.
func (o *responder) accept() { o.empty(http.StatusAccepted) }

// empty answers with status and no body.
func (o *responder) empty(status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.writable() {
		o.closed, o.final = true, true
		o.status = status
		o.w.WriteHeader(status)
	}
}

// abandon ends a request that gets no response (it was cancelled): an SSE
// stream, begun now if need be, that closes without a message, which is
// what a client that cancelled expects to read.
func (o *responder) abandon() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.writable() {
		return
	}
	if !o.stream {
		o.startStream()
	}
	o.closed = true
}

// close forbids any further write.
func (o *responder) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
}

// summary returns, for the log, the status sent, how many progress
// notifications went out, whether the response did, and whether it was an
// SSE stream.
func (o *responder) summary() (status, progress int, final, stream bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.status, o.sent, o.final, o.stream
}

// writable reports whether anything may still be written. A client that
// hung up gets nothing more (the HTTP form of cancellation). Callers hold
// mu.
func (o *responder) writable() bool {
	if o.ctx.Err() != nil {
		o.closed = true
	}
	return !o.closed
}

// progressParams is the params of notifications/progress.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// progress is the progress.Reporter of a request that carried a
// progressToken. A report whose progress does not rise is dropped, since
// MCP requires progress to increase with each notification; so is one that
// JSON cannot carry. A total of zero or less means unknown.
func (o *responder) progress(done, total float64, message string) {
	if !finite(done) {
		return
	}
	if !finite(total) || total < 0 {
		total = 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.writable() || (o.sent > 0 && done <= o.last) {
		return
	}
	data, err := jsonrpc.EncodeNotification("notifications/progress",
		progressParams{ProgressToken: o.token, Progress: done, Total: total, Message: message})
	if err != nil {
		return
	}
	if o.streamEvent(data) {
		o.sent, o.last = o.sent+1, done
		if o.progressed != nil {
			o.progressed()
		}
	}
}

// messageParams is the params of notifications/message.
type messageParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger"`
	Data   string `json:"data"`
}

// message sends a log message of the call on its stream, before the
// response, as MCP allows only for a request that set a logLevel.
func (o *responder) message(level, text string) {
	o.notify("notifications/message", messageParams{Level: level, Logger: "taskwire", Data: text})
}

// notify sends a notification on the stream, beginning it if need be. It
// reports whether the notification went out.
func (o *responder) notify(method string, params any) bool {
	data, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return false
	}
	return o.send(data)
}

// send writes one message (a server request of the legacy era) on the
// stream, beginning it if need be.
func (o *responder) send(data []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.writable() && o.streamEvent(data)
}

// streamEvent writes data as an SSE event, beginning the stream if need
// be. Callers hold mu and have checked writable.
func (o *responder) streamEvent(data []byte) bool {
	if !o.stream {
		o.startStream()
	}
	return o.event(data)
}

// keepAlive writes an SSE comment line, which clients ignore and proxies
// take as traffic.
func (o *responder) keepAlive() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.writable() || !o.stream {
		return
	}
	if _, err := o.w.Write([]byte(": keep-alive\n\n")); err != nil {
		o.closed = true
		return
	}
	http.NewResponseController(o.w).Flush()
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// startStream turns the response into an SSE stream. Every check that
// could end in a 4xx has passed by now: progress exists only inside a
// running tools/call. Callers hold mu.
func (o *responder) startStream() {
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // keep nginx from holding events back
	o.w.WriteHeader(http.StatusOK)
	o.stream, o.status = true, http.StatusOK
	if o.opened != nil {
		o.opened()
	}
}

// event writes one SSE event holding one JSON-RPC message and flushes it,
// so the client sees progress as it happens. A failed write means the
// client is gone: the stream closes. Callers hold mu.
func (o *responder) event(data []byte) bool {
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(append(buf, data...), "\n\n"...)
	if _, err := o.w.Write(buf); err != nil {
		o.closed = true
		return false
	}
	if err := http.NewResponseController(o.w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		o.closed = true
		return false
	}
	return true
}

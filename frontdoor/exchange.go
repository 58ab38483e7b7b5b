package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/calllog"
)

// exchange is one request on the MCP endpoint, from arrival to its log
// record. Its fields fill in as the request gets further.
type exchange struct {
	h      *Handler
	r      *http.Request
	out    *responder
	start  time.Time
	caller identity.Caller
	msg    *jsonrpc.Message
	req    *request
	// legacy marks a message of a pre-2026 client; ses is its session once
	// opened.
	legacy bool
	ses    session
	// cancelled is set when the client cancelled the call with
	// notifications/cancelled: it then gets no response.
	cancelled atomic.Bool
	// charge is what the request took from its rate limits, if any
	// (ratelimit_exchange.go).
	charge *charge
	// streamDone frees the place of a listen stream counted against its
	// caller's limits (streams.go); nil for any other request.
	streamDone func()

	// For the log record.
	id        string // the request id (observe.go)
	tool      string
	toolError bool
	code      int
	cause     error
}

// serveMCP answers one request on the endpoint.
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{h: h, r: r, out: newResponder(w, r.Context()), start: time.Now()}
	x.arrive()
	x.out.opened, x.out.progressed = x.streamHooks()
	defer x.done()
	body, f := x.admit()
	switch {
	case f != nil:
		x.fail(f)
	case r.Method == http.MethodDelete:
		x.deleteSession()
	default:
		x.dispatch(body)
	}
}

// admit runs the transport checks in a fixed order: Host, Origin, method,
// declared body size, token, framing, body size as read. None needs the
// body parsed, and no body is read for a caller that is not authenticated.
// A legacy DELETE stops after the token: it has no body.
func (x *exchange) admit() ([]byte, *failure) {
	if f := x.h.checkHost(x.r); f != nil {
		return nil, f
	}
	if f := x.h.checkOrigin(x.r); f != nil {
		return nil, f
	}
	if f := checkHTTPMethod(x.r); f != nil {
		return nil, f
	}
	if x.r.ContentLength > x.h.cfg.MaxBodyBytes {
		return nil, tooLarge(x.h.cfg.MaxBodyBytes)
	}
	// The throttle checks the client's address before the token and
	// counts a refused token after, in this frame rather than one more
	// around authenticate: an idle listen stream keeps the deepest stack
	// its request needed, and the token's check is that deepest point.
	throttle := x.h.cfg.AuthThrottle
	addr := throttle.ClientAddr(x.r)
	if f := throttled(throttle, addr); f != nil {
		return nil, f
	}
	c, f := x.h.authenticate(x.r)
	if f != nil {
		if f.status == http.StatusUnauthorized {
			throttle.Failed(addr)
		}
		return nil, f
	}
	x.caller = c
	calllog.Set(x.r.Context(), slog.String(calllog.KeyTenant, c.Tenant), slog.Int(calllog.KeyMember, c.Member))
	if x.r.Method == http.MethodDelete {
		return nil, nil
	}
	if f := checkFraming(x.r.Header); f != nil {
		return nil, f
	}
	return x.readBody()
}

// checkOrigin refuses a request whose Origin header names a site that is
// not allowed: a browser page elsewhere must not drive the endpoint (DNS
// rebinding). Requests without Origin come from non-browser clients.
func (h *Handler) checkOrigin(r *http.Request) *failure {
	values := r.Header.Values("Origin")
	if len(values) == 0 {
		return nil
	}
	if o, err := normalizeOrigin(values[0]); err == nil && len(values) == 1 && h.origins[o] {
		return nil
	}
	return refusal(http.StatusForbidden, "forbidden: this Origin is not allowed", nil)
}

// checkHTTPMethod admits POST, and DELETE from a legacy client, which ends
// its session with it. GET, the legacy standalone SSE stream, is 405 in
// both eras, which the legacy transport allows: nothing here ever has a
// message for a client outside the response to its own request.
func checkHTTPMethod(r *http.Request) *failure {
	modern := modernHeader(r.Header)
	switch {
	case r.Method == http.MethodPost, r.Method == http.MethodDelete && !modern:
		return nil
	case modern:
		return refusal(http.StatusMethodNotAllowed, "method not allowed: this endpoint takes POST only", http.Header{"Allow": {http.MethodPost}})
	}
	return refusal(http.StatusMethodNotAllowed, "method not allowed: this endpoint takes POST, and DELETE to end a session; it offers no standalone SSE stream",
		http.Header{"Allow": {"POST, DELETE"}})
}

// checkFraming checks Accept and Content-Type as go-sdk does: the client
// must accept both response forms, since the server picks one per request.
func checkFraming(hdr http.Header) *failure {
	if jsonOK, sseOK := accepts(hdr.Values("Accept")); !jsonOK || !sseOK {
		return refusal(http.StatusBadRequest, "invalid request: Accept must list both application/json and text/event-stream", nil)
	}
	if mt, _, err := mime.ParseMediaType(hdr.Get("Content-Type")); err != nil || mt != "application/json" {
		return refusal(http.StatusUnsupportedMediaType, "unsupported media type: Content-Type must be application/json", nil)
	}
	return nil
}

// accepts reports whether Accept values cover JSON and SSE responses.
func accepts(values []string) (jsonOK, sseOK bool) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}

// readBody reads the body up to the configured limit.
func (x *exchange) readBody() ([]byte, *failure) {
	body, err := io.ReadAll(http.MaxBytesReader(x.out.w, x.r.Body, x.h.cfg.MaxBodyBytes))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge(x.h.cfg.MaxBodyBytes)
	case err != nil:
		f := refusal(http.StatusBadRequest, "invalid request: the body could not be read", nil)
		f.cause = err
		return nil, f
	}
	return body, nil
}

// tooLarge refuses a body over limit, saying the limit, so a client knows
// how much less to send.
func tooLarge(limit int64) *failure {
	msg := fmt.Sprintf("the request body is larger than %s, this server's limit: send less in one request, e.g. split a large tasks_import into several calls", byteSize(limit))
	return refusal(http.StatusRequestEntityTooLarge, msg, nil)
}

// byteSize writes n in the largest binary unit it is a whole number of,
// with the exact count beside it: "4 MiB (4194304 bytes)".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// dispatch decodes the body and answers it by kind.
func (x *exchange) dispatch(body []byte) {
	msg, err := jsonrpc.Decode(body)
	x.msg = msg
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		x.fail(&failure{id: msg.ID, err: je})
	case !isModern(x.r.Header, msg):
		if x.admitLegacyRate() {
			x.serveLegacy()
		}
	case msg.Kind == jsonrpc.Notification:
		x.notification()
	case msg.Kind == jsonrpc.Response:
		// Under 2026-07-28 a server sends no requests, so no response can
		// be owed to it.
		x.fail(&failure{err: jsonrpc.Errorf(jsonrpc.InvalidRequest, "invalid request: this server sends no requests, so it takes no responses")})
	default:
		x.request()
	}
}

// notification accepts a notification whose headers are consistent. The
// core protocol defines no client notification over HTTP, so none has an
// effect; refusing a bad one still tells a broken client.
func (x *exchange) notification() {
	if e := checkNotification(x.r.Header, x.msg); e != nil {
		x.fail(&failure{err: e})
		return
	}
	if x.admitRate(notificationsOp) {
		x.out.accept()
	}
}

// request checks a request and runs its method.
func (x *exchange) request() {
	x.req = parseRequest(x.msg, x.r.Header)
	x.begin()
	for _, check := range requestChecks {
		if e := check(x.req); e != nil {
			x.fail(&failure{id: x.msg.ID, err: e})
			return
		}
	}
	if !x.admitRate(operation(x.msg.Method, x.req.params)) {
		return
	}
	result, err := methods[x.msg.Method](x)
	if err != nil {
		x.fail(x.failureFor(err))
		return
	}
	x.reply(result)
}

// reply sends a method's result.
func (x *exchange) reply(result any) { x.replyWith(nil, result) }

// replyWith sends a method's result with extra response headers.
func (x *exchange) replyWith(header http.Header, result any) {
	body, err := jsonrpc.EncodeResult(x.msg.ID, result)
	if err != nil {
		x.fail(x.internal(err))
		return
	}
	x.out.finish(http.StatusOK, header, body)
}

// fail sends f; a nil f means the client left and gets nothing.
func (x *exchange) fail(f *failure) {
	if f == nil {
		return
	}
	x.refund(f)
	x.code, x.cause = f.err.Code, f.cause
	body, err := jsonrpc.EncodeError(f.id, f.err)
	if err != nil { // f.err.Data did not encode: a bug, still owed an answer
		x.cause = errors.Join(f.cause, err)
		body, _ = jsonrpc.EncodeError(f.id, &jsonrpc.Error{Code: jsonrpc.Internal, Message: "internal error"})
	}
	x.out.finish(f.statusCode(x.legacy), f.header, body)
}

// done ends the exchange: nothing may be written after it, whoever still
// holds the progress reporter, and the request gets its one log record.
func (x *exchange) done() {
	if x.streamDone != nil {
		x.streamDone()
	}
	x.out.close()
	status, progress, final, stream := x.out.summary()
	outcome, level := x.outcome(status, final)
	attrs := x.logAttrs(status, progress, outcome)
	x.h.cfg.Logger.LogAttrs(context.WithoutCancel(x.r.Context()), level, "mcp request", attrs...)
	if stream && x.h.cfg.Observer != nil {
		x.h.cfg.Observer.Stream(false, -1)
	}
	x.end(status, outcome)
}

// logAttrs describes the request for its log record: never the token, the
// arguments or the result, which may hold task text.
func (x *exchange) logAttrs(status, progress int, outcome string) []slog.Attr {
	attrs := []slog.Attr{
		slog.String("method", x.methodName()),
		slog.String("outcome", outcome),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(x.start)),
		slog.String(calllog.KeyRequestID, x.id),
	}
	if x.tool != "" {
		attrs = append(attrs, slog.String(calllog.KeyTool, clip(x.tool)))
	}
	if x.caller.Tenant != "" {
		attrs = append(attrs, slog.String(calllog.KeyTenant, x.caller.Tenant), slog.Int(calllog.KeyMember, x.caller.Member))
	}
	if id := x.traceID(); id != "" {
		attrs = append(attrs, slog.String(calllog.KeyTraceID, id))
	}
	if x.code != 0 {
		attrs = append(attrs, slog.Int("code", x.code))
	}
	if progress > 0 {
		attrs = append(attrs, slog.Int("progress", progress))
	}
	if x.cause != nil {
		attrs = append(attrs, slog.String("error", x.cause.Error()))
	}
	return attrs
}

// outcome names how the request ended, and the level that deserves.
func (x *exchange) outcome(status int, final bool) (string, slog.Level) {
	switch {
	case !final:
		return "cancelled", slog.LevelInfo
	case x.code == jsonrpc.Internal:
		return "internal", slog.LevelError
	case x.code == jsonrpc.RateLimited:
		return "rate_limited", slog.LevelInfo
	case x.code == jsonrpc.Unavailable:
		return "unavailable", slog.LevelInfo
	case x.code != 0:
		return "refused", slog.LevelInfo
	case status == http.StatusAccepted:
		return "accepted", slog.LevelInfo
	case x.toolError:
		return "tool_error", slog.LevelInfo
	}
	return "ok", slog.LevelInfo
}

// methodName is the JSON-RPC method, or the HTTP method when the body was
// never read.
func (x *exchange) methodName() string {
	if x.msg == nil {
		return x.r.Method
	}
	return clip(x.msg.Method)
}

// clip shortens a client-chosen string for the log.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return strings.ToValidUTF8(s[:64], "") + "…"
}

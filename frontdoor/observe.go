package frontdoor

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/calllog"
	"github.com/taskwire/taskwire/internal/telemetry/mcpobserve"
)

// hdrRequestID lets a proxy in front name the request; anything else gets
// an id of the front door's.
const hdrRequestID = "X-Request-Id"

// requestID returns the request's id: the X-Request-Id header when it is
// short and plain, else a new random one.
func requestID(h http.Header) string {
	if v := h.Values(hdrRequestID); len(v) == 1 && plainID(v[0]) {
		return v[0]
	}
	return rand.Text()
}

// plainID reports whether s may serve as a request id in logs and
// metadata: 1 to 64 letters, digits, '-', '_' or '.'.
func plainID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// arrive gives the request its id, carried in its context for the log
// records of the call and, as gRPC metadata, to every worker call made
// for it.
func (x *exchange) arrive() {
	x.id = requestID(x.r.Header)
	ctx := calllog.Start(x.r.Context())
	calllog.Set(ctx, slog.String(calllog.KeyRequestID, x.id))
	ctx = metadata.AppendToOutgoingContext(ctx, calllog.MDRequestID, x.id)
	x.r = x.r.WithContext(ctx)
	if o := x.h.cfg.Observer; o != nil {
		o.Arrive()
	}
}

// begin tells the observer the request's method and trace context, once
// _meta has been read.
func (x *exchange) begin() {
	o := x.h.cfg.Observer
	if o == nil {
		return
	}
	start := mcpobserve.RequestStart{RequestID: x.id, Method: x.metricMethod(), Version: mcp.LatestVersion}
	if x.legacy {
		start.Version = x.ses.Version
	}
	if x.req != nil {
		start.TraceParent, _ = str(x.req.meta, mcp.MetaTraceParent)
		start.TraceState, _ = str(x.req.meta, mcp.MetaTraceState)
	}
	x.r = x.r.WithContext(o.Begin(x.r.Context(), start))
}

// end tells the observer how the request ended.
func (x *exchange) end(status int, outcome string) {
	o := x.h.cfg.Observer
	if o == nil {
		return
	}
	o.End(x.r.Context(), mcpobserve.RequestEnd{
		RequestID: x.id, Method: x.metricMethod(), Tool: clip(x.tool),
		Outcome: outcome, Code: x.code, Status: status, Duration: time.Since(x.start),
	})
}

// metricMethod is the request's method when this front door serves it
// (in either era), "other" for anything else, "" before the body is read.
func (x *exchange) metricMethod() string {
	switch {
	case x.msg == nil:
		return ""
	case methods[x.msg.Method] != nil, legacyMethods[x.msg.Method] != nil, x.msg.Method == "initialize":
		return x.msg.Method
	}
	return "other"
}

// traceID is the trace the request belongs to, for its log record: the
// observer's span when it started one, else the client's traceparent.
func (x *exchange) traceID() string {
	if sc := trace.SpanContextFromContext(x.r.Context()); sc.IsValid() {
		return sc.TraceID().String()
	}
	if x.req == nil {
		return ""
	}
	if tp, _ := str(x.req.meta, mcp.MetaTraceParent); validTraceParent(tp) {
		return tp[3:35]
	}
	return ""
}

// validTraceParent reports whether tp is a W3C traceparent of version 00
// with non-zero ids.
func validTraceParent(tp string) bool {
	if len(tp) != 55 || tp[:3] != "00-" || tp[35] != '-' || tp[52] != '-' {
		return false
	}
	zeroTrace, zeroSpan := true, true
	for i := 3; i < 55; i++ {
		c := tp[i]
		if i == 35 || i == 52 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
		if c != '0' && i < 35 {
			zeroTrace = false
		}
		if c != '0' && i > 35 && i < 52 {
			zeroSpan = false
		}
	}
	return !zeroTrace && !zeroSpan
}

// streamHooks tell the observer about a request's SSE stream and the
// progress sent on it; both are nil without an observer.
func (x *exchange) streamHooks() (opened, progressed func()) {
	o := x.h.cfg.Observer
	if o == nil {
		return nil, nil
	}
	return func() { o.Stream(false, +1) }, o.Progress
}

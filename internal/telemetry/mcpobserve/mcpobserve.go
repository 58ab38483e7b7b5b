// Package mcpobserve is the contract between the MCP front door and what
// watches its requests: the front door calls an Observer, and package
// telemetry implements one. It holds no code, so that the front door and
// telemetry can both import it and neither has to import the other:
// telemetry is platform code, which must not depend on a component.
package mcpobserve

import (
	"context"
	"time"
)

// Observer watches the MCP endpoint for metrics and traces (package
// telemetry implements it). Its methods are called on the request's
// goroutine, except Progress, and must not block.
type Observer interface {
	// Arrive is called as a request arrives, before any check.
	Arrive()
	// Begin is called once the JSON-RPC method and _meta of a request are
	// known, before the method runs; the context it returns is the
	// request's from then on, so that what the method calls (the workers)
	// joins the span Begin may have started.
	Begin(ctx context.Context, r RequestStart) context.Context
	// End is called once per request as it ends, whether or not Begin was.
	End(ctx context.Context, r RequestEnd)
	// Stream is called with +1 when the response of a request becomes an
	// SSE stream, and -1 when that stream ends; listen says whether it is
	// a subscriptions/listen stream.
	Stream(listen bool, delta int)
	// Progress is called for each progress notification sent to a client.
	Progress()
}

// RequestStart is what Observer.Begin learns of a request.
type RequestStart struct {
	RequestID string
	// Method is the JSON-RPC method when the front door serves it, else
	// "other": never a client's free choice, so it can label metrics.
	Method string
	// TraceParent and TraceState are params._meta's W3C trace context,
	// as sent; "" when absent.
	TraceParent, TraceState string
	// Version is the MCP revision of the request.
	Version string
}

// RequestEnd is what Observer.End learns of a request.
type RequestEnd struct {
	RequestID string
	// Method is as in RequestStart; "" when the body was never read.
	Method string
	// Tool is the tool a tools/call named, as the client sent it (clipped);
	// the observer must bound it before using it as a label.
	Tool string
	// Outcome is the record's outcome: ok, tool_error, accepted,
	// cancelled, refused, rate_limited or internal.
	Outcome string
	Code    int // the JSON-RPC error code, 0 when none
	Status  int // the HTTP status, 0 when nothing was sent
	// Duration runs from arrival to the end of the response.
	Duration time.Duration
}

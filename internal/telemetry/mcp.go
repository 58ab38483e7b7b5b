package telemetry

import (
	"context"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/taskwire/taskwire/internal/telemetry/mcpobserve"
)

// FrontdoorObserver returns the observer of MCP requests of this process,
// for the front door's Config.Observer: it counts and times MCP requests and starts
// one server span per request, whose parent is the W3C trace context of
// the request's _meta when it has a valid one (else the HTTP headers', see
// RequestContext). tools are the catalogue's tool names: any other name a
// client sends is counted as "unknown".
func (t *Telemetry) FrontdoorObserver(tools []string) mcpobserve.Observer {
	known := make(map[string]bool, len(tools))
	for _, name := range tools {
		known[name] = true
	}
	return &observer{t: t, m: t.metrics, tools: known}
}

type observer struct {
	t     *Telemetry
	m     *metrics
	tools map[string]bool
}

func (o *observer) Arrive() { o.m.inFlight.Inc() }

func (o *observer) Progress() { o.m.progress.Inc() }

func (o *observer) Stream(listen bool, delta int) {
	o.m.sseStreams.Add(float64(delta))
	if listen {
		o.m.listenStreams.Add(float64(delta))
	}
}

// Begin starts the request's span. The _meta trace context goes through
// the same propagator as HTTP headers and gRPC metadata, so the three
// always agree on what is a valid parent.
func (o *observer) Begin(ctx context.Context, r mcpobserve.RequestStart) context.Context {
	if r.TraceParent != "" {
		carrier := propagation.MapCarrier{"traceparent": r.TraceParent}
		if r.TraceState != "" {
			carrier["tracestate"] = r.TraceState
		}
		ctx = o.t.prop.Extract(ctx, carrier)
	}
	ctx, _ = o.t.tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("mcp.method.name", r.Method),
		attribute.String("mcp.protocol.version", r.Version),
		attribute.String("taskwire.request_id", r.RequestID),
	))
	return ctx
}

// End counts the request and ends its span, if Begin started one. The
// request leaves the in-flight gauge only once it is counted, so no scrape
// sees a request that is neither in flight nor counted.
func (o *observer) End(ctx context.Context, r mcpobserve.RequestEnd) {
	method, tool := methodLabel(r.Method), o.toolLabel(r.Tool)
	o.m.requests.WithLabelValues(method, tool, r.Outcome, codeLabel(r.Code)).Inc()
	o.m.requestSeconds.WithLabelValues(method, tool, r.Outcome).Observe(r.Duration.Seconds())
	o.m.inFlight.Dec()
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if tool != "" {
		span.SetName(method + " " + tool)
		span.SetAttributes(attribute.String("gen_ai.tool.name", tool))
	}
	span.SetAttributes(attribute.String("taskwire.outcome", r.Outcome), attribute.Int("http.response.status_code", r.Status))
	if r.Code != 0 {
		span.SetAttributes(attribute.Int("rpc.jsonrpc.error_code", r.Code))
	}
	if r.Outcome == "internal" {
		span.SetStatus(codes.Error, "internal error")
	}
	span.End()
}

// methodLabel names requests whose body was never read "none".
func methodLabel(m string) string {
	if m == "" {
		return "none"
	}
	return m
}

// toolLabel bounds a tool name by the catalogue.
func (o *observer) toolLabel(name string) string {
	switch {
	case name == "":
		return ""
	case o.tools[name]:
		return name
	}
	return "unknown"
}

func codeLabel(code int) string {
	if code == 0 {
		return ""
	}
	return strconv.Itoa(code)
}

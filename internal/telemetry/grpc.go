package telemetry

import (
	"context"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/baggage"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// GRPCServerOptions are a worker's server options, for
// worker.Config.ServerOptions: the OpenTelemetry server handler, which
// continues the trace the front door sends, and the calls' metrics. gRPC
// runs interceptors only for registered methods, so the method label is
// bounded by what the worker serves. A process that records no spans
// leaves the handler out: it would only put the caller's span context
// into each call's context, where nothing reads it then (the worker's
// logs take the trace id from the call's metadata).
func (t *Telemetry) GRPCServerOptions() []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(t.countUnary),
		grpc.ChainStreamInterceptor(t.countStream),
	}
	if h := t.serverHandler(); h != nil {
		opts = append(opts, grpc.StatsHandler(h))
	}
	return opts
}

// LocalCalls are what GRPCServerOptions and GRPCDialOptions add to a
// call, for calls that skip gRPC inside one process (worker.LocalConfig):
// the metrics interceptor and the two stats handlers (server nil when no
// spans are recorded).
func (t *Telemetry) LocalCalls() (interceptor grpc.UnaryServerInterceptor, client, server stats.Handler) {
	return t.countUnary, t.clientHandler(), t.serverHandler()
}

// GRPCDialOptions are a front door's options for its connection to the
// workers: the client stats handler, which puts the request's trace
// context into each call's metadata.
func (t *Telemetry) GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithStatsHandler(t.clientHandler())}
}

// recording reports whether this process records spans: false when no
// exporter or span processor is configured, and its tracer provider is
// OpenTelemetry's no-op one.
func (t *Telemetry) recording() bool {
	_, noop := t.tp.(tracenoop.TracerProvider)
	return !noop
}

// clientHandler is otelgrpc's client handler when spans are recorded;
// otherwise one that only propagates the trace context, which is all
// otelgrpc's achieves then, without its per-call tags, attributes and
// span bookkeeping.
func (t *Telemetry) clientHandler() stats.Handler {
	if t.recording() {
		return otelgrpc.NewClientHandler(t.otelgrpcOptions()...)
	}
	return propagator{t.prop}
}

func (t *Telemetry) serverHandler() stats.Handler {
	if t.recording() {
		return otelgrpc.NewServerHandler(t.otelgrpcOptions()...)
	}
	return nil
}

// propagator is a client stats handler that puts the call's trace
// context and baggage into its outgoing metadata, as otelgrpc's client
// handler does, and records nothing.
type propagator struct{ prop propagation.TextMapPropagator }

func (p propagator) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return ctx // nothing to send
	}
	md, ok := metadata.FromOutgoingContext(ctx) // a copy
	if !ok {
		md = metadata.MD{}
	}
	p.prop.Inject(ctx, mdCarrier(md))
	return metadata.NewOutgoingContext(ctx, md)
}

func (propagator) HandleRPC(context.Context, stats.RPCStats)                         {}
func (propagator) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (propagator) HandleConn(context.Context, stats.ConnStats)                       {}

// mdCarrier lets a propagator write gRPC metadata; a key it sets replaces
// what the metadata had under it, as with otelgrpc.
type mdCarrier metadata.MD

func (c mdCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c mdCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c mdCarrier) Keys() []string { return slices.Collect(maps.Keys(c)) }

// otelgrpcOptions name this process's provider and propagator rather than
// the global ones, and keep otelgrpc's own metrics off: Prometheus has
// ours.
func (t *Telemetry) otelgrpcOptions() []otelgrpc.Option {
	return []otelgrpc.Option{
		otelgrpc.WithTracerProvider(t.tp),
		otelgrpc.WithPropagators(t.prop),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()),
	}
}

func (t *Telemetry) countUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	t.metrics.rpcInFlight.Inc()
	defer t.doneRPC(info.FullMethod, time.Now())
	resp, err := handler(ctx, req)
	t.metrics.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return resp, err
}

func (t *Telemetry) countStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	t.metrics.rpcInFlight.Inc()
	defer t.doneRPC(info.FullMethod, time.Now())
	err := handler(srv, ss)
	t.metrics.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return err
}

// doneRPC takes a call that began at start out of the in-flight gauge,
// then records how long it took: after it leaves the gauge, so a scrape
// that sees the call timed no longer sees it in flight. It is deferred
// as a method call, not a returned closure, which would cost every call
// an allocation.
func (t *Telemetry) doneRPC(method string, start time.Time) {
	t.metrics.rpcInFlight.Dec()
	t.metrics.rpcSeconds.WithLabelValues(method).Observe(time.Since(start).Seconds())
}

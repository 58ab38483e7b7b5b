package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// GRPCServerOptions are a worker's server options, for
// worker.Config.ServerOptions: the OpenTelemetry server handler, which
// continues the trace the front door sends, and the calls' metrics. gRPC
// runs interceptors only for registered methods, so the method label is
// bounded by what the worker serves.
func (t *Telemetry) GRPCServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.StatsHandler(otelgrpc.NewServerHandler(t.otelgrpcOptions()...)),
		grpc.ChainUnaryInterceptor(t.countUnary),
		grpc.ChainStreamInterceptor(t.countStream),
	}
}

// LocalCalls are what GRPCServerOptions and GRPCDialOptions add to a
// call, for calls that skip gRPC inside one process (worker.LocalConfig):
// the metrics interceptor and the two OpenTelemetry handlers.
func (t *Telemetry) LocalCalls() (interceptor grpc.UnaryServerInterceptor, client, server stats.Handler) {
	return t.countUnary, otelgrpc.NewClientHandler(t.otelgrpcOptions()...), otelgrpc.NewServerHandler(t.otelgrpcOptions()...)
}

// GRPCDialOptions are a front door's options for its connection to the
// workers: the OpenTelemetry client handler, which puts the request's
// trace context into each call's metadata.
func (t *Telemetry) GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(t.otelgrpcOptions()...))}
}

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
	defer t.countRPC(info.FullMethod)()
	resp, err := handler(ctx, req)
	t.metrics.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return resp, err
}

func (t *Telemetry) countStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	defer t.countRPC(info.FullMethod)()
	err := handler(srv, ss)
	t.metrics.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return err
}

// countRPC counts a call in flight until the function it returns runs,
// which also records how long it took: after it leaves the gauge, so a
// scrape that sees the call timed no longer sees it in flight.
func (t *Telemetry) countRPC(method string) func() {
	start := time.Now()
	t.metrics.rpcInFlight.Inc()
	return func() {
		t.metrics.rpcInFlight.Dec()
		t.metrics.rpcSeconds.WithLabelValues(method).Observe(time.Since(start).Seconds())
	}
}

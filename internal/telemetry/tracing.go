package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// newTracerProvider builds the tracer provider the environment asks for:
// the SDK with an OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT (or its
// _TRACES_ form) is set, or when cfg brings a span processor; otherwise a
// no-op provider, whose spans only carry the caller's trace context along.
// OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn exporting off.
// The exporters read the rest of OTEL_EXPORTER_OTLP_* themselves, and the
// SDK reads OTEL_TRACES_SAMPLER and OTEL_RESOURCE_ATTRIBUTES.
func newTracerProvider(cfg Config) (trace.TracerProvider, func(context.Context) error, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	exporter, err := newExporter(getenv)
	if err != nil {
		return nil, nil, err
	}
	if exporter == nil && cfg.SpanProcessor == nil {
		return noop.NewTracerProvider(), nil, nil
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceName(serviceName(getenv, cfg.Service)), semconv.ServiceVersion(cfg.Version)))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: trace resource: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if exporter != nil {
		opts = append(opts, sdktrace.WithBatcher(exporter))
	}
	if cfg.SpanProcessor != nil {
		opts = append(opts, sdktrace.WithSpanProcessor(cfg.SpanProcessor))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return tp, tp.Shutdown, nil
}

// serviceName prefers OTEL_SERVICE_NAME, as the OpenTelemetry
// specification asks, to the name the command gives.
func serviceName(getenv func(string) string, name string) string {
	if v := getenv("OTEL_SERVICE_NAME"); v != "" {
		return v
	}
	return name
}

// newExporter returns the OTLP exporter the environment configures, or
// nil when it configures none. The protocol is OTLP over HTTP unless
// OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says grpc, as the specification's
// default has it.
func newExporter(getenv func(string) string) (sdktrace.SpanExporter, error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	switch kind := getenv("OTEL_TRACES_EXPORTER"); kind {
	case "", "otlp":
	case "none":
		return nil, nil
	default:
		return nil, fmt.Errorf("telemetry: OTEL_TRACES_EXPORTER=%s is not supported: use otlp or none", kind)
	}
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	protocol := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	ctx := context.Background() // the exporters connect lazily
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("telemetry: OTLP protocol %q is not supported: use grpc or http/protobuf", protocol)
}

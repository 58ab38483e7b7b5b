// Package telemetry is what a Taskwire process tells its operators:
// Prometheus metrics on a registry of its own, OpenTelemetry traces from
// the HTTP request through gRPC to the database, and JSON logs that carry
// each call's identity. A command builds one Telemetry with New, hands its
// hooks to the front door, the worker and the store, serves Handler on
// /metrics, and calls Shutdown last, so the spans still buffered leave.
package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/taskwire/taskwire/internal/calllog"
)

// Config configures a Telemetry. Zero values mean the defaults noted.
type Config struct {
	// Service names the process in traces (service.name) unless
	// OTEL_SERVICE_NAME does, e.g. "taskwire-frontdoor". Required.
	Service string
	// Version is the build's version, recorded with the traces.
	Version string
	// Getenv reads the OTEL_* variables that configure tracing; nil means
	// os.Getenv. Tests pass a map's lookup.
	Getenv func(string) string
	// SpanProcessor, when set, receives every span, in addition to any
	// exporter the environment configures: tests pass a recorder.
	SpanProcessor sdktrace.SpanProcessor
}

// Validate reports whether New can work with c.
func (c Config) Validate() error {
	if c.Service == "" {
		return errors.New("telemetry: Config.Service is required")
	}
	return nil
}

// Telemetry holds a process's metrics registry and tracer provider.
type Telemetry struct {
	reg     *prometheus.Registry
	metrics *metrics
	tp      trace.TracerProvider
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	stop    func(context.Context) error // flushes and stops the SDK, if any
}

// New returns a Telemetry whose registry holds the Go runtime and process
// collectors and Taskwire's own metrics, and whose tracing follows the
// standard OTEL_* environment (see tracing.go): with no exporter
// configured, traces cost almost nothing, but the trace context a client
// sends still reaches the workers and the logs.
func New(cfg Config) (*Telemetry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	t := &Telemetry{
		reg:     reg,
		metrics: newMetrics(reg),
		prop:    propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	tp, stop, err := newTracerProvider(cfg)
	if err != nil {
		return nil, err
	}
	t.tp, t.stop = tp, stop
	t.tracer = tp.Tracer("github.com/taskwire/taskwire", trace.WithInstrumentationVersion(cfg.Version))
	return t, nil
}

// Handler serves the registry in the Prometheus exposition format, for
// /metrics.
func (t *Telemetry) Handler() http.Handler {
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{Registry: t.reg})
}

// Shutdown sends the spans still buffered and stops tracing, within ctx.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t.stop == nil {
		return nil
	}
	return t.stop(ctx)
}

// NewLogger returns a JSON logger writing to w at level and above, whose
// records carry the identity of the call they were logged in (package
// calllog).
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(calllog.NewHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// RequestContext is r's context with the W3C trace context of its HTTP
// headers read in, so that a request whose _meta names no trace still
// joins the caller's, and readied for the call's log attributes. The
// front door's outermost handler hands every request on with it. It
// starts no span: the front door starts one per MCP request once it has
// read _meta (see FrontdoorObserver).
func (t *Telemetry) RequestContext(r *http.Request) context.Context {
	return calllog.Start(t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
}

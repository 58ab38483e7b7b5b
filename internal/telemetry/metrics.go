package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
)

// latencyBuckets span a cached read (milliseconds) to a long import with
// progress (minutes), in seconds.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// metrics are the process's own series. Every label value comes from a
// closed set (served methods, catalogue tools, outcomes, codes), never
// from a tenant, a member or a task, so the series stay few.
type metrics struct {
	requests       *prometheus.CounterVec   // method, tool, outcome, code
	requestSeconds *prometheus.HistogramVec // method, tool, outcome
	inFlight       prometheus.Gauge
	sseStreams     prometheus.Gauge
	listenStreams  prometheus.Gauge
	progress       prometheus.Counter
	relayFailures  *prometheus.CounterVec // reason

	rpcs        *prometheus.CounterVec   // method, code
	rpcSeconds  *prometheus.HistogramVec // method
	rpcInFlight prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "taskwire_mcp_requests_total",
			Help: "MCP requests answered by this front door, by JSON-RPC method, tool (tools/call only), outcome and JSON-RPC error code.",
		}, []string{"method", "tool", "outcome", "code"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "taskwire_mcp_request_duration_seconds",
			Help:    "Time from the arrival of an MCP request to the end of its response (an SSE stream's last event).",
			Buckets: latencyBuckets,
		}, []string{"method", "tool", "outcome"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "taskwire_mcp_requests_in_flight",
			Help: "MCP requests this front door is answering now, listen streams included.",
		}),
		sseStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "taskwire_mcp_sse_streams_open",
			Help: "Responses being sent as SSE streams now (calls with progress, and listen streams).",
		}),
		listenStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "taskwire_mcp_listen_streams_open",
			Help: "subscriptions/listen streams open now.",
		}),
		progress: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "taskwire_mcp_progress_notifications_total",
			Help: "notifications/progress sent to clients.",
		}),
		relayFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "taskwire_progress_relay_failures_total",
			Help: "Calls that asked for progress or log messages and were told some could not be relayed, by reason (this front door's NATS connection was down, the worker's was, or events came too late).",
		}, []string{"reason"}),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "taskwire_grpc_server_handled_total",
			Help: "gRPC calls this worker finished, by full method and status code.",
		}, []string{"method", "code"}),
		rpcSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "taskwire_grpc_server_handling_seconds",
			Help:    "Time this worker took to handle a gRPC call, by full method.",
			Buckets: latencyBuckets,
		}, []string{"method"}),
		rpcInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "taskwire_grpc_server_in_flight",
			Help: "gRPC calls this worker is handling now.",
		}),
	}
	reg.MustRegister(m.requests, m.requestSeconds, m.inFlight, m.sseStreams, m.listenStreams, m.progress, m.relayFailures,
		m.rpcs, m.rpcSeconds, m.rpcInFlight)
	return m
}

package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/internal/telemetry"
)

// NewTelemetry returns the process's logger at level, which gives every
// record the identity of its call, and its telemetry, named service in
// traces. A command builds one of each and hands them to every node it
// runs: the metrics registry refuses a second registration of the same
// database or NATS connection.
func NewTelemetry(level slog.Level, service, version string, w io.Writer) (*telemetry.Telemetry, *slog.Logger, error) {
	log := telemetry.NewLogger(w, level)
	tel, err := telemetry.New(telemetry.Config{Service: service, Version: version})
	if err != nil {
		return nil, nil, err
	}
	return tel, log, nil
}

// ShutdownTelemetry sends the spans still buffered, within a few seconds:
// the last step of a process, once its servers have stopped.
func ShutdownTelemetry(tel *telemetry.Telemetry, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		log.Warn("traces still buffered at exit were lost", "err", err)
	}
}

// metricsHandler serves the registry on /metrics, and Go's profiles on
// /debug/pprof/ when withPprof, and nothing else, so a port that serves
// metrics serves no MCP and no admin API.
func metricsHandler(tel *telemetry.Telemetry, withPprof bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", tel.Handler())
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// sideServer is an HTTP server on a listen address of its own, kept off
// the public port: metrics and probes, which scrapers and orchestrators
// reach inside the deployment and clients never.
type sideServer struct {
	srv *http.Server
	lis net.Listener
}

// serveSide listens on addr and serves h there in the background, logging
// a failure to serve; what names the server in errors.
func serveSide(addr, what string, h http.Handler, log *slog.Logger) (*sideServer, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", what, addr, err)
	}
	m := &sideServer{lis: lis, srv: &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}}
	go func() {
		if err := m.srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(what+" server stopped", "err", err)
		}
	}()
	return m, nil
}

// serveMetrics listens on addr and serves tel's metrics there; an empty
// addr serves none and returns nil, which the methods accept.
func serveMetrics(addr string, withPprof bool, tel *telemetry.Telemetry, log *slog.Logger) (*sideServer, error) {
	if addr == "" {
		if withPprof {
			return nil, errors.New("--pprof serves the profiles beside the metrics: set --metrics-addr too")
		}
		return nil, nil
	}
	return serveSide(addr, "metrics", metricsHandler(tel, withPprof), log)
}

// Addr is the address metrics are served on, or "" for none.
func (m *sideServer) Addr() string {
	if m == nil {
		return ""
	}
	return m.lis.Addr().String()
}

// Close stops serving: a scrape or probe cut short loses nothing.
func (m *sideServer) Close() {
	if m != nil {
		m.srv.Close()
	}
}

// toolNames are the catalogue's tool names, which bound the tool label of
// the request metrics.
func toolNames(cat *catalog.Catalog) []string {
	var names []string
	for _, t := range cat.Tools() {
		names = append(names, t.Def.Name)
	}
	return names
}

// grpcServerOptions puts tel's options for a worker's gRPC server (nil
// tel: none) before extra, so its metrics and spans see every call.
func grpcServerOptions(tel *telemetry.Telemetry, extra []grpc.ServerOption) []grpc.ServerOption {
	if tel == nil {
		return extra
	}
	return append(tel.GRPCServerOptions(), extra...)
}

// dialOptions are the telemetry's options of the connection to the
// workers, which carry each request's trace to them.
func (cfg FrontdoorConfig) dialOptions() []grpc.DialOption {
	if cfg.Telemetry == nil {
		return nil
	}
	return cfg.Telemetry.GRPCDialOptions()
}

// frontHandler answers the probes, and hands the console's requests to
// it and everything else to next, each with the trace context of its headers read (telemetry's
// RequestContext), in one layer of handlers instead of two. Every request
// passes through it, a listen stream for as long as it is open, and its
// goroutine keeps the deepest stack it needed: one layer less kept that
// stack at 8 KB instead of 16 per stream (TestListenStreamStack). For
// the same reason the console's requests are told apart here, not in a
// layer of their own.
func (cfg FrontdoorConfig) frontHandler(ready func(context.Context) error, con consoleRoute, next http.Handler) http.Handler {
	tel := cfg.Telemetry
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if answerProbe(w, r, ready) {
			return
		}
		if tel != nil {
			r = r.WithContext(tel.RequestContext(r))
		}
		if con.edgeTakes(r) {
			con.edge.ServeHTTP(w, r)
			return
		}
		if con.takes(r) {
			con.handler.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

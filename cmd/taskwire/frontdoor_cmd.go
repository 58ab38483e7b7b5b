package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
)

// runFrontdoor runs `taskwire frontdoor`: the HTTP edge (MCP endpoint,
// admin API, JWKS, metadata), calling the workers over gRPC, until
// SIGTERM, when it stops accepting and lets open requests and streams end.
func runFrontdoor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg nodeConfig
	fs := flag.NewFlagSet("taskwire frontdoor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.frontdoorFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := cfg.checkRates(); err != nil {
		return err
	}
	if err := cfg.checkLimits(); err != nil {
		return err
	}
	if err := cfg.resolveNode(map[string]string{"--workers": cfg.Workers}); err != nil {
		return err
	}
	tel, log, err := newTelemetry(&cfg.config, "taskwire-frontdoor", stderr)
	if err != nil {
		return err
	}
	defer shutdownTelemetry(tel, log)
	nodeCfg, err := frontdoorConfig(cfg, log)
	if err != nil {
		return err
	}
	nodeCfg.Telemetry = tel
	return serveFrontdoor(ctx, cfg, nodeCfg, log)
}

// frontdoorConfig loads the keys and secrets of a front door node.
func frontdoorConfig(cfg nodeConfig, log *slog.Logger) (frontdoorNodeConfig, error) {
	internal, err := loadInternalKey(cfg.InternalKeyFile)
	if err != nil {
		return frontdoorNodeConfig{}, err
	}
	root, retired, err := loadRootKey(&cfg.config)
	if err != nil {
		return frontdoorNodeConfig{}, err
	}
	var operator *adminedge.OperatorSecret
	if cfg.OperatorSecretFile != "" {
		if operator, _, err = loadOperatorSecret(&cfg.config); err != nil {
			return frontdoorNodeConfig{}, err
		}
	}
	return frontdoorNodeConfig{
		PublicURL: cfg.PublicURL, AllowedOrigins: cfg.origins(), Worker: cfg.Workers, InternalKey: internal,
		Key: root, Retired: retired, Log: log, Conformance: cfg.Conformance, Operator: operator,
		RateLimits: cfg.rateLimits(), MaxTokenTTL: cfg.MaxTokenTTL, ListenLimits: cfg.listenLimits(),
		AdminRateLimits: cfg.adminRateLimits(), AuthThrottle: cfg.authThrottle(),
	}, nil
}

// serveFrontdoor listens, connects to NATS and the workers, and serves
// until ctx ends or the server fails. Metrics are served from the start,
// so a front door waiting for its first worker can be watched too.
func serveFrontdoor(ctx context.Context, cfg nodeConfig, nodeCfg frontdoorNodeConfig, log *slog.Logger) error {
	metrics, err := serveMetrics(cfg.MetricsAddr, cfg.Pprof, nodeCfg.Telemetry, log)
	if err != nil {
		return err
	}
	defer metrics.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	b, err := startBus(cfg.NATS, "")
	if err != nil {
		ln.Close()
		return err
	}
	defer b.Close()
	nodeCfg.Telemetry.InstrumentNATS(b.conn)
	nodeCfg.Listener, nodeCfg.NATS = ln, b.conn
	front, err := startFrontdoorNode(nodeCfg)
	if err != nil {
		ln.Close()
		return fmt.Errorf("front door: %w", err)
	}
	log.Info("front door serving", "endpoint", front.endpoint, "addr", ln.Addr().String(), "workers", cfg.Workers, "metrics", metrics.Addr())
	var served error
	select {
	case <-ctx.Done():
		log.Info("front door stopping: no new connections, open requests and streams finish", "grace", cfg.ShutdownGrace.String())
	case served = <-front.served:
		log.Error("front door stopped on its own", "err", served)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	start := time.Now()
	if err := front.stop(stopCtx); err != nil {
		log.Warn("front door: requests still open at the end of the grace were cut off", "err", err)
	}
	log.Info("front door stopped", "took", time.Since(start).String())
	return served
}

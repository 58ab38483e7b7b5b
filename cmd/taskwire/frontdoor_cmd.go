package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/taskwire/taskwire/node"
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
	level, err := cfg.logLevel()
	if err != nil {
		return err
	}
	tel, log, err := node.NewTelemetry(level, "taskwire-frontdoor", version, stderr)
	if err != nil {
		return err
	}
	defer node.ShutdownTelemetry(tel, log)
	pcfg := cfg.frontdoorProcess()
	pcfg.Node.Log, pcfg.Node.Telemetry = log, tel
	return serveFrontdoor(ctx, cfg, pcfg)
}

// serveFrontdoor starts the front door and serves until ctx ends or the
// server fails, then stops it within the shutdown grace.
func serveFrontdoor(ctx context.Context, cfg nodeConfig, pcfg node.FrontdoorProcessConfig) error {
	log := pcfg.Node.Log
	front, err := node.StartFrontdoorProcess(ctx, pcfg)
	if err != nil {
		return err
	}
	log.Info("front door serving", "endpoint", front.Endpoint(), "addr", front.Addr(), "workers", cfg.Workers, "metrics", front.MetricsAddr())
	var served error
	select {
	case <-ctx.Done():
		log.Info("front door stopping: no new connections, open requests and streams finish", "grace", cfg.ShutdownGrace.String())
	case served = <-front.Done():
		log.Error("front door stopped on its own", "err", served)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	start := time.Now()
	if err := front.Stop(stopCtx); err != nil {
		log.Warn("front door: requests still open at the end of the grace were cut off", "err", err)
	}
	log.Info("front door stopped", "took", time.Since(start).String())
	return served
}

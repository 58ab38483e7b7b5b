package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/taskwire/taskwire/node"
)

// runWorker runs `taskwire worker`: the board's gRPC server over the
// database, with probes on a small HTTP port, until SIGTERM drains it.
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg nodeConfig
	fs := flag.NewFlagSet("taskwire worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.workerFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := cfg.resolveNode(map[string]string{"--db": cfg.DB}); err != nil {
		return err
	}
	if cfg.MaxConnectionAge < 0 {
		return fmt.Errorf("--max-connection-age %v: want a duration, or 0 for none", cfg.MaxConnectionAge)
	}
	level, err := cfg.logLevel()
	if err != nil {
		return err
	}
	tel, log, err := node.NewTelemetry(level, "taskwire-worker", version, stderr)
	if err != nil {
		return err
	}
	defer node.ShutdownTelemetry(tel, log)
	warnOpenDirs(log, &cfg.config)
	pcfg := cfg.workerProcess()
	pcfg.Log, pcfg.Telemetry = log, tel
	return serveWorker(ctx, cfg, pcfg)
}

// serveWorker starts the worker and serves until ctx ends or the server
// fails, then drains it within the shutdown grace.
func serveWorker(ctx context.Context, cfg nodeConfig, pcfg node.WorkerProcessConfig) error {
	log := pcfg.Log
	w, err := node.StartWorkerProcess(ctx, pcfg)
	if err != nil {
		return err
	}
	log.Info("worker serving", "grpc", w.Addr(), "http", w.HTTPAddr(), "db", redactDSN(cfg.DB), "schema_version", w.SchemaVersion())
	var served error
	select {
	case <-ctx.Done():
		log.Info("worker draining: no new calls, calls in flight finish", "grace", cfg.ShutdownGrace.String())
	case served = <-w.Done():
		log.Error("worker stopped on its own", "err", served)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	w.Stop(stopCtx)
	log.Info("worker stopped")
	return served
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"google.golang.org/grpc"
	grpckeepalive "google.golang.org/grpc/keepalive"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
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
	tel, log, err := newTelemetry(&cfg.config, "taskwire-worker", stderr)
	if err != nil {
		return err
	}
	defer shutdownTelemetry(tel, log)
	warnOpenDirs(log, &cfg.config)
	w, err := startWorkerProcess(ctx, cfg, log, tel)
	if err != nil {
		return err
	}
	log.Info("worker serving", "grpc", w.node.addr, "http", w.httpAddr(), "db", redactDSN(cfg.DB), "schema_version", w.db.Version)
	var served error
	select {
	case <-ctx.Done():
		log.Info("worker draining: no new calls, calls in flight finish", "grace", cfg.ShutdownGrace.String())
	case served = <-w.node.served:
		log.Error("worker stopped on its own", "err", served)
	}
	w.close()
	log.Info("worker stopped")
	return served
}

// workerProcess is what `taskwire worker` runs: the database, NATS, the
// worker node and its probes and metrics.
type workerProcess struct {
	cfg    nodeConfig
	tel    *telemetry.Telemetry
	db     *store.Database
	bus    *bus
	node   *workerNode
	probes *http.Server
	lis    net.Listener // the probes'
}

func startWorkerProcess(ctx context.Context, cfg nodeConfig, log *slog.Logger, tel *telemetry.Telemetry) (_ *workerProcess, err error) {
	w := &workerProcess{cfg: cfg, tel: tel}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.db, err = openWorkerDB(ctx, cfg, log, store.WrapDriver(tel.EntDriver)); err != nil {
		return nil, err
	}
	if w.bus, err = startBus(cfg.NATS, ""); err != nil {
		return nil, err
	}
	tel.InstrumentNATS(w.bus.conn)
	nodeCfg, err := w.nodeConfig(ctx, log)
	if err != nil {
		return nil, err
	}
	if w.node, err = startWorkerNode(nodeCfg); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	return w, w.serveProbes()
}

// openWorkerDB connects to the database, migrating it first only when
// told: a deployment's migration runs once, before its workers start.
func openWorkerDB(ctx context.Context, cfg nodeConfig, log *slog.Logger, opts ...store.Option) (*store.Database, error) {
	if cfg.Migrate {
		from, err := store.Migrate(ctx, cfg.DB, store.Logger(log))
		if err != nil {
			return nil, err
		}
		log.Info("schema migrated", "from", from, "to", store.SchemaVersion)
	}
	db, err := store.Connect(ctx, cfg.DB, opts...)
	if err != nil {
		return nil, err
	}
	if db.Version > store.SchemaVersion {
		log.Warn("the database was migrated by a newer taskwire; serving it as migrations only add", "schema_version", db.Version, "build_schema_version", store.SchemaVersion)
	}
	return db, nil
}

// nodeConfig loads the keys and returns the worker node's configuration.
func (w *workerProcess) nodeConfig(ctx context.Context, log *slog.Logger) (workerNodeConfig, error) {
	cfg := w.cfg
	internal, err := loadInternalKey(cfg.InternalKeyFile)
	if err != nil {
		return workerNodeConfig{}, err
	}
	root, retired, err := loadRootKey(&cfg.config)
	if err != nil {
		return workerNodeConfig{}, err
	}
	news, err := events.New(w.bus.conn)
	if err != nil {
		return workerNodeConfig{}, err
	}
	ring, err := openKeyring(ctx, w.db.Client, root, retired, cfg.MaxTokenTTL, news, log)
	if err != nil {
		return workerNodeConfig{}, err
	}
	issuer, err := authn.NewIssuer(authn.IssuerConfig{Current: ring.Current, Issuer: cfg.PublicURL, Audience: cfg.endpoint()})
	if err != nil {
		return workerNodeConfig{}, err
	}
	warnOtherPublicURL(ctx, w.db.Client, cfg.PublicURL, log)
	return workerNodeConfig{
		DB: w.db.Client, NATS: w.bus.conn, InternalKey: internal, Listen: cfg.Listen,
		Drain: cfg.ShutdownGrace, Log: log, Conformance: cfg.Conformance, Issuer: issuer, Keys: ring,
		Telemetry: w.tel, ServerOptions: keepalive(cfg), MaxTokenTTL: cfg.MaxTokenTTL, Quota: cfg.Quota,
	}, nil
}

// serveProbes serves /healthz, /readyz and /metrics on the --http
// address, if any.
func (w *workerProcess) serveProbes() error {
	if w.cfg.HTTPAddr == "" {
		if w.cfg.Pprof {
			return errors.New("--pprof serves the profiles beside the probes: set --http too")
		}
		return nil
	}
	lis, err := net.Listen("tcp", w.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("probes: listen on %s: %w", w.cfg.HTTPAddr, err)
	}
	w.lis = lis
	w.probes = &http.Server{Handler: probes(w.ready, metricsHandler(w.tel, w.cfg.Pprof)), ReadHeaderTimeout: readHeaderTimeout}
	go w.probes.Serve(lis)
	return nil
}

func (w *workerProcess) httpAddr() string {
	if w.lis == nil {
		return ""
	}
	return w.lis.Addr().String()
}

// ready reports whether the worker takes calls: it is not draining, NATS
// is connected and the database answers.
func (w *workerProcess) ready(ctx context.Context) error {
	switch {
	case w.node.srv.Draining():
		return errors.New("draining")
	case !w.bus.conn.IsConnected():
		return fmt.Errorf("NATS is %s", w.bus.conn.Status())
	}
	if err := w.db.Ping(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	return nil
}

// close drains the worker within the shutdown grace (health NOT_SERVING
// first, so front doors send nothing new), then stops the probes, NATS
// and the database.
func (w *workerProcess) close() {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.ShutdownGrace)
	defer cancel()
	if w.node != nil {
		w.node.stop(ctx)
	}
	if w.probes != nil {
		w.probes.Close()
	}
	if w.bus != nil {
		w.bus.Close()
	}
	if w.db != nil {
		w.db.Close()
	}
}

// keepalive bounds the age of the front doors' connections to the worker
// (--max-connection-age, ±10% so they do not all reconnect at once): a
// front door following a DNS name re-resolves it only when a connection
// ends, so without this it would never call a worker added later. Calls
// in flight when the age is reached get the shutdown grace to finish.
func keepalive(cfg nodeConfig) []grpc.ServerOption {
	if cfg.MaxConnectionAge <= 0 {
		return nil
	}
	return []grpc.ServerOption{grpc.KeepaliveParams(grpckeepalive.ServerParameters{
		MaxConnectionAge:      cfg.MaxConnectionAge,
		MaxConnectionAgeGrace: cfg.ShutdownGrace,
	})}
}

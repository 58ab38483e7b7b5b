package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	grpckeepalive "google.golang.org/grpc/keepalive"

	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
)

// WorkerProcess is what `taskwire worker` runs: the database, NATS, the
// worker node and its probes and metrics.
type WorkerProcess struct {
	cfg    WorkerProcessConfig
	db     *store.Database
	bus    *natsBus
	node   *Worker
	probes *sideServer // nil without HTTPAddr
}

// WorkerProcessConfig is a worker's settings: the command checks its
// flags, Validate what a start needs.
type WorkerProcessConfig struct {
	DB              string // the database URL
	Migrate         bool   // migrate the schema before serving
	NATS            string // the NATS server's URL
	InternalKeyFile string // the key front doors present (loadInternalKey)
	SigningKey      string // the root key's file, which must exist
	RetiredKeys     []string
	PublicURL       string
	Listen          string // gRPC
	HTTPAddr        string // probes and metrics; empty: none
	Pprof           bool   // also serve Go's profiles beside the probes
	ShutdownGrace   time.Duration
	Conformance     bool
	MaxTokenTTL     time.Duration
	Quota           quota.Limits
	Sessions        SessionLimits // of the console's sessions
	OAuth           OAuthConfig   // of the OAuth authorization server
	Mail            *mail.Sender  // emails invitations; nil: none are
	// MaxConnectionAge closes each front door's connection after about
	// this long (see Keepalive); 0: never.
	MaxConnectionAge time.Duration

	Log       *slog.Logger         // required
	Telemetry *telemetry.Telemetry // required
}

// Validate refuses settings a worker cannot start from, before anything
// is opened. An empty NATS would start a server in this process, which
// no other process of the deployment would hear.
func (cfg WorkerProcessConfig) Validate() error {
	if err := requireAll("worker",
		setting{"Log", cfg.Log != nil}, setting{"Telemetry", cfg.Telemetry != nil},
		setting{"DB", cfg.DB != ""}, setting{"NATS", cfg.NATS != ""}, setting{"Listen", cfg.Listen != ""},
		setting{"InternalKeyFile", cfg.InternalKeyFile != ""}, setting{"SigningKey", cfg.SigningKey != ""},
		setting{"PublicURL", cfg.PublicURL != ""}); err != nil {
		return err
	}
	if cfg.ShutdownGrace <= 0 {
		return fmt.Errorf("worker: ShutdownGrace %v: want a positive duration", cfg.ShutdownGrace)
	}
	return nil
}

// StartWorkerProcess opens the database and NATS, loads the keys, and
// starts the worker node and its probes. A start that fails stops what
// it had started.
func StartWorkerProcess(ctx context.Context, cfg WorkerProcessConfig) (_ *WorkerProcess, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &WorkerProcess{cfg: cfg}
	defer func() {
		if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
			defer cancel()
			w.Stop(ctx)
		}
	}()
	if w.db, err = openWorkerDB(ctx, cfg, store.WrapDriver(cfg.Telemetry.EntDriver)); err != nil {
		return nil, err
	}
	if w.bus, err = startBus(cfg.NATS, "", cfg.Log); err != nil {
		return nil, err
	}
	cfg.Telemetry.InstrumentNATS(w.bus.Conn)
	nodeCfg, err := w.nodeConfig(ctx)
	if err != nil {
		return nil, err
	}
	if w.node, err = NewWorker(nodeCfg); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	cfg.Telemetry.InstrumentOutages(func() (bool, uint64, uint64) {
		o := w.node.Outages()
		return o.Reachable, o.Outages, o.Refused
	})
	w.node.Start()
	return w, w.serveProbes()
}

// openWorkerDB connects to the database, migrating it first only when
// told: a deployment's migration runs once, before its workers start.
func openWorkerDB(ctx context.Context, cfg WorkerProcessConfig, opts ...store.Option) (*store.Database, error) {
	log := cfg.Log
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
func (w *WorkerProcess) nodeConfig(ctx context.Context) (WorkerConfig, error) {
	cfg, log := w.cfg, w.cfg.Log
	internal, err := loadInternalKey(cfg.InternalKeyFile)
	if err != nil {
		return WorkerConfig{}, err
	}
	root, retired, err := loadRootKey(cfg.SigningKey, cfg.RetiredKeys)
	if err != nil {
		return WorkerConfig{}, err
	}
	signing, err := OpenSigning(ctx, w.db.Client, w.bus.Conn, root, retired, cfg.MaxTokenTTL, cfg.PublicURL, log)
	if err != nil {
		return WorkerConfig{}, err
	}
	warnOtherPublicURL(ctx, w.db.Client, cfg.PublicURL, log)
	return WorkerConfig{
		DB: w.db.Client, Database: w.db, NATS: w.bus.Conn, InternalKey: internal, Listen: cfg.Listen,
		Drain: cfg.ShutdownGrace, Log: log, Conformance: cfg.Conformance, Issuer: signing.Issuer, Keys: signing.Keys,
		Telemetry: cfg.Telemetry, ServerOptions: Keepalive(cfg.MaxConnectionAge, cfg.ShutdownGrace),
		MaxTokenTTL: cfg.MaxTokenTTL, Quota: cfg.Quota, Sessions: cfg.Sessions,
		Mail: cfg.Mail, PublicURL: cfg.PublicURL, OAuth: cfg.OAuth,
	}, nil
}

// serveProbes serves /healthz, /readyz and /metrics on the HTTP address,
// if any.
func (w *WorkerProcess) serveProbes() error {
	if w.cfg.HTTPAddr == "" {
		if w.cfg.Pprof {
			return errors.New("--pprof serves the profiles beside the probes: set --http too")
		}
		return nil
	}
	var err error
	w.probes, err = serveSide(w.cfg.HTTPAddr, "probes", probes(w.ready, metricsHandler(w.cfg.Telemetry, w.cfg.Pprof)), w.cfg.Log)
	return err
}

// Addr is the worker's gRPC address.
func (w *WorkerProcess) Addr() string { return w.node.Addr() }

// HTTPAddr is the probes' address, or "" for none.
func (w *WorkerProcess) HTTPAddr() string { return w.probes.Addr() }

// SchemaVersion is the database schema's version.
func (w *WorkerProcess) SchemaVersion() int { return w.db.Version }

// Done yields the error that ended serving gRPC.
func (w *WorkerProcess) Done() <-chan error { return w.node.Done() }

// ready reports whether the worker takes calls: it is not draining, its
// breaker finds the database reachable (as its gRPC health does), and NATS
// is connected. Only readiness reports NATS: creates go on during a NATS
// outage, so gRPC health, which front doors route by, ignores it.
func (w *WorkerProcess) ready(context.Context) error {
	switch o := w.node.Outages(); {
	case w.node.Draining():
		return errors.New("draining")
	case !o.Reachable:
		return errors.New("the database cannot be reached; calls are answered as unavailable")
	case !w.bus.Conn.IsConnected():
		return fmt.Errorf("NATS is %s", w.bus.Conn.Status())
	}
	return nil
}

// Stop drains the worker within ctx (health NOT_SERVING first, so front
// doors send nothing new), then stops the probes, NATS and the database.
func (w *WorkerProcess) Stop(ctx context.Context) {
	if w.node != nil {
		w.node.Stop(ctx)
	}
	w.probes.Close()
	if w.bus != nil {
		w.bus.Close()
	}
	if w.db != nil {
		w.db.Close()
	}
}

// Keepalive bounds the age of the front doors' connections to the worker
// (--max-connection-age, ±10% so they do not all reconnect at once): a
// front door following a DNS name re-resolves it only when a connection
// ends, so without this it would never call a worker added later. Calls
// in flight when the age is reached get grace to finish.
func Keepalive(maxAge, grace time.Duration) []grpc.ServerOption {
	if maxAge <= 0 {
		return nil
	}
	return []grpc.ServerOption{grpc.KeepaliveParams(grpckeepalive.ServerParameters{
		MaxConnectionAge:      maxAge,
		MaxConnectionAgeGrace: grace,
	})}
}

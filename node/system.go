package node

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/worker"
)

// System is one Taskwire process, as `taskwire serve` runs it: a front
// door node and a worker node, NATS in process (or remote), and one
// database. The front door's MCP and admin calls reach the worker in
// memory, through worker.Server.Local; only the keys and revocations it
// loads at start, and what Local falls back on, go over gRPC on loopback.
type System struct {
	cfg      SystemConfig
	log      *slog.Logger
	DB       *ent.Client
	Key      *authn.Key // the root key: derives the sealing keys, seals the signing keys
	Keys     *keys.Ring // the signing keys, in the database
	Issuer   *authn.Issuer
	Endpoint string

	first     tenancy.Result   // the first tenant, its owner and board
	anonymous *identity.Caller // with Conformance: who requests without a token act as

	operator  *adminedge.OperatorSecret // recognises the operator secret on the admin API
	newSecret string                    // the operator secret, when this start created it: shown once

	tel     *telemetry.Telemetry // one for both nodes: a registry takes the database and NATS once
	metrics *sideServer          // nil without MetricsAddr
	bus     *natsBus
	worker  *Worker
	front   *Frontdoor
	// internalKey is what the front door presents to the worker.
	internalKey string
	served      chan error
	// releaseData gives up the data directory (see holdDataDir).
	releaseData func()
	// reserve keeps room beside an SQLite database for reads on a full
	// disk (store.Reserve); it does nothing on PostgreSQL.
	reserve *store.Reserve
}

// SystemConfig is what a System is started from: serve's flags, resolved.
type SystemConfig struct {
	Listener    net.Listener // the front door's
	DataDir     string       // held while the system runs (holdDataDir)
	DB          string       // sqlite:<path> or postgres://…
	SigningKey  string       // the root key's file, created if missing
	RetiredKeys []string     // files of root keys rotated out
	PublicURL   string       // tokens are bound to it
	NATS        string       // a NATS server's URL; empty: one in process…
	NATSListen  string       // …that listens on this address, if any

	AllowedOrigins []string
	MetricsAddr    string // where /metrics is served; empty: nowhere
	Pprof          bool   // also serve Go's profiles beside /metrics
	ShutdownGrace  time.Duration
	MaxTokenTTL    time.Duration
	Conformance    bool
	Sessions       SessionLimits // of the console's sessions
	OAuth          OAuthConfig   // of the OAuth authorization server
	// Mail emails invitations; nil: the inviter passes each link on.
	Mail *mail.Sender
	// OIDCProviders are the OpenID providers people may sign in with.
	OIDCProviders []oidcsignin.ProviderConfig

	RateLimits      frontdoor.RateLimits
	ListenLimits    frontdoor.StreamLimits
	AdminRateLimits frontdoor.RateLimits
	AuthThrottle    frontdoor.AuthThrottleConfig
	Quota           quota.Limits

	// OperatorSecretFile holds the platform operators' secret, created
	// on start when CreateOperatorSecret and it is missing.
	OperatorSecretFile   string
	CreateOperatorSecret bool

	Log     *slog.Logger // required
	Version string       // told to MCP clients and in traces
}

// Validate refuses a configuration a system cannot start from.
func (cfg SystemConfig) Validate() error {
	return requireAll("system",
		setting{"Listener", cfg.Listener != nil}, setting{"Log", cfg.Log != nil},
		setting{"DataDir", cfg.DataDir != ""}, setting{"DB", cfg.DB != ""},
		setting{"SigningKey", cfg.SigningKey != ""}, setting{"PublicURL", cfg.PublicURL != ""},
		setting{"OperatorSecretFile", cfg.OperatorSecretFile != ""})
}

// NewSystem validates cfg; Start starts the system.
func NewSystem(cfg SystemConfig) (*System, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &System{cfg: cfg, log: cfg.Log, Endpoint: endpoint(cfg.PublicURL), served: make(chan error, 2)}, nil
}

// Start opens the database, starts the worker and the front door and
// returns once both accept connections. A start that fails stops what it
// had started.
func (s *System) Start(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			s.Stop(context.Background())
		}
	}()
	if err := s.open(ctx); err != nil {
		return err
	}
	retired, err := s.keys(ctx)
	if err != nil {
		return err
	}
	if err := s.bootstrap(ctx); err != nil {
		return err
	}
	warnOtherPublicURL(ctx, s.DB, s.cfg.PublicURL, s.log)
	if s.operator, s.newSecret, err = LoadOperatorSecret(s.cfg.OperatorSecretFile, s.cfg.CreateOperatorSecret); err != nil {
		return err
	}
	return s.startNodes(ctx, retired)
}

// open takes the data directory and opens the telemetry, the metrics
// server, the database and NATS.
func (s *System) open(ctx context.Context) (err error) {
	cfg := s.cfg
	// The token commands find this server through the data directory,
	// and go through its admin API while it runs.
	if s.releaseData, err = holdDataDir(ctx, cfg.DataDir, "http://"+HostPort(cfg.Listener.Addr().String())); err != nil {
		return err
	}
	if s.tel, err = telemetry.New(telemetry.Config{Service: "taskwire", Version: cfg.Version}); err != nil {
		return err
	}
	if s.metrics, err = serveMetrics(cfg.MetricsAddr, cfg.Pprof, s.tel, s.log); err != nil {
		return err
	}
	s.reserve = store.NewReserve(s.log)
	if s.DB, err = openDB(ctx, cfg.DB, s.tel, s.reserve, s.log); err != nil {
		return err
	}
	if s.bus, err = startBus(cfg.NATS, cfg.NATSListen, s.log); err != nil {
		return err
	}
	s.tel.InstrumentNATS(s.bus.Conn)
	return nil
}

// startNodes starts the worker node on loopback and the front door node
// on the listener, calling the worker in process.
func (s *System) startNodes(ctx context.Context, retired []*authn.Key) (err error) {
	cfg := s.cfg
	// The worker trusts the caller named in metadata only from calls that
	// carry this process's key, so nothing else on the machine that
	// reaches the loopback port can act as a member.
	key := rand.Text()
	s.internalKey = key
	s.worker, err = NewWorker(WorkerConfig{
		DB: s.DB, NATS: s.bus.Conn, InternalKey: key, Listen: "127.0.0.1:0",
		Drain: cfg.ShutdownGrace, Log: s.log, Conformance: cfg.Conformance, Issuer: s.Issuer, Keys: s.Keys,
		Telemetry: s.tel, MaxTokenTTL: cfg.MaxTokenTTL, Quota: cfg.Quota, Sessions: cfg.Sessions,
		Mail: cfg.Mail, PublicURL: cfg.PublicURL, OAuth: cfg.OAuth, Disk: s.reserve,
	})
	if err != nil {
		return err
	}
	s.worker.Start()
	front, err := NewFrontdoor(FrontdoorConfig{
		Listener: cfg.Listener, PublicURL: cfg.PublicURL, AllowedOrigins: cfg.AllowedOrigins,
		Worker: "passthrough:///" + s.worker.Addr(), InternalKey: key,
		NATS: s.bus.Conn, Key: s.Key, Retired: retired, Log: s.log,
		Conformance: cfg.Conformance, Anonymous: s.anonymous, Operator: s.operator,
		RateLimits: cfg.RateLimits, ListenLimits: cfg.ListenLimits,
		AdminRateLimits: cfg.AdminRateLimits, AuthThrottle: cfg.AuthThrottle, Telemetry: s.tel, MaxTokenTTL: cfg.MaxTokenTTL,
		Local: s.local(key), Version: cfg.Version, OIDCProviders: cfg.OIDCProviders,
	})
	if err != nil {
		return err
	}
	if err := front.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	s.front = front
	go func() { s.served <- <-s.worker.Done() }()
	go func() { s.served <- <-s.front.Done() }()
	return nil
}

// local connects the front door to the worker in this process, with the
// telemetry of in-process calls.
func (s *System) local(key string) func(grpc.ClientConnInterface) (grpc.ClientConnInterface, error) {
	return func(fallback grpc.ClientConnInterface) (grpc.ClientConnInterface, error) {
		lc := worker.LocalConfig{Fallback: fallback, Credentials: identity.InternalKey(key)}
		if s.tel != nil {
			var unary grpc.UnaryServerInterceptor
			unary, lc.ClientStats, lc.ServerStats = s.tel.LocalCalls()
			lc.Interceptors = []grpc.UnaryServerInterceptor{unary}
		}
		return s.worker.Local(lc)
	}
}

// Stop stops the front door (letting calls in flight finish within the
// shutdown grace), then the worker, NATS and the database, and last the
// metrics and the traces still buffered.
func (s *System) Stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownGrace)
	defer cancel()
	var errs []error
	if s.front != nil {
		if err := s.front.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("front door: %w", err))
		}
	} else {
		s.cfg.Listener.Close()
	}
	if s.worker != nil {
		s.worker.Stop(ctx)
	}
	if s.bus != nil {
		s.bus.Close()
	}
	if s.DB != nil {
		errs = append(errs, s.DB.Close())
	}
	s.reserve.Close()
	s.metrics.Close()
	if s.tel != nil {
		ShutdownTelemetry(s.tel, s.log)
	}
	if s.releaseData != nil {
		s.releaseData()
	}
	return errors.Join(errs...)
}

// Done returns a channel that yields an error when a server stops on its own.
func (s *System) Done() <-chan error { return s.served }

// Config is the configuration the system was started from.
func (s *System) Config() SystemConfig { return s.cfg }

// First is the first tenant, its owner and board, and whether this start
// created them.
func (s *System) First() tenancy.Result { return s.first }

// NATS is the connection both nodes share.
func (s *System) NATS() *nats.Conn { return s.bus.Conn }

// WorkerAddr is the worker node's gRPC address on loopback.
func (s *System) WorkerAddr() string { return s.worker.Addr() }

// MetricsAddr is where metrics are served, or "" for nowhere.
func (s *System) MetricsAddr() string { return s.metrics.Addr() }

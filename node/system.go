package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"google.golang.org/grpc"

	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/tokens"
	"github.com/taskwire/taskwire/worker"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// system is one Taskwire process: a front door node and a worker node
// joined by real gRPC over loopback, NATS in process (or remote), and one
// database.
type system struct {
	cfg      config
	log      *slog.Logger
	DB       *ent.Client
	Key      *authn.Key // the root key: derives the sealing keys, seals the signing keys
	Keys     *keys.Ring // the signing keys, in the database
	Issuer   *authn.Issuer
	Endpoint string

	first     tenancy.Result   // the first tenant, its owner and board
	anonymous *identity.Caller // with --conformance: who requests without a token act as

	operator  *adminedge.OperatorSecret // recognises the operator secret on the admin API
	newSecret string                    // the operator secret, when this start created it: shown once

	tel     *telemetry.Telemetry // one for both nodes: a registry takes the database and NATS once
	metrics *metricsServer       // nil without --metrics-addr
	bus     *bus
	worker  *workerNode
	front   *frontdoorNode
	httpLis net.Listener
	served  chan error
	// releaseData gives up the data directory (see holdDataDir).
	releaseData func()
}

// startSystem opens the database, starts the worker and the front door and
// returns once both accept connections. ln is the front door's listener.
func startSystem(ctx context.Context, cfg config, ln net.Listener, log *slog.Logger) (_ *system, err error) {
	s := &system{cfg: cfg, log: log, httpLis: ln, served: make(chan error, 2)}
	defer func() {
		if err != nil {
			s.Close(context.Background())
		}
	}()
	// The token commands find this server through the data directory,
	// and go through its admin API while it runs.
	if s.releaseData, err = holdDataDir(ctx, cfg.DataDir, "http://"+hostPort(ln.Addr().String())); err != nil {
		return nil, err
	}
	if s.tel, err = telemetry.New(telemetry.Config{Service: "taskwire", Version: version, Logger: log}); err != nil {
		return nil, err
	}
	if s.metrics, err = serveMetrics(cfg.MetricsAddr, cfg.Pprof, s.tel, log); err != nil {
		return nil, err
	}
	if s.DB, err = store.Open(ctx, cfg.DB, store.WrapDriver(s.tel.EntDriver), store.Logger(log)); err != nil {
		return nil, err
	}
	if s.Key, _, err = authn.LoadOrCreateKey(cfg.SigningKey); err != nil {
		return nil, err
	}
	retired, err := loadRetiredKeys(cfg.retiredKeys(), s.Key)
	if err != nil {
		return nil, err
	}
	if s.bus, err = startBus(cfg.NATS, cfg.NATSListen); err != nil {
		return nil, err
	}
	s.tel.InstrumentNATS(s.bus.conn)
	keyNews, err := events.New(s.bus.conn)
	if err != nil {
		return nil, err
	}
	// Tokens are signed with the keyring's current key, which the admin
	// API rotates; the key file seals it at rest.
	if s.Keys, err = openKeyring(ctx, s.DB, s.Key, retired, cfg.MaxTokenTTL, keyNews, log); err != nil {
		return nil, err
	}
	s.Endpoint = cfg.endpoint()
	if s.Issuer, err = authn.NewIssuer(authn.IssuerConfig{Current: s.Keys.Current, Issuer: cfg.PublicURL, Audience: s.Endpoint}); err != nil {
		return nil, err
	}
	if err := s.bootstrap(ctx); err != nil {
		return nil, err
	}
	warnOtherPublicURL(ctx, s.DB, cfg.PublicURL, log)
	if s.operator, s.newSecret, err = loadOperatorSecret(&cfg); err != nil {
		return nil, err
	}
	// The worker trusts the caller named in metadata only from calls that
	// carry this process's key, so nothing else on the machine that
	// reaches the loopback port can act as a member.
	key := rand.Text()
	s.worker, err = startWorkerNode(workerNodeConfig{
		DB: s.DB, NATS: s.bus.conn, InternalKey: key, Listen: "127.0.0.1:0",
		Drain: cfg.ShutdownGrace, Log: log, Conformance: cfg.Conformance, Issuer: s.Issuer, Keys: s.Keys,
		Telemetry: s.tel, MaxTokenTTL: cfg.MaxTokenTTL, Quota: cfg.Quota,
	})
	if err != nil {
		return nil, err
	}
	s.front, err = startFrontdoorNode(frontdoorNodeConfig{
		Listener: ln, PublicURL: cfg.PublicURL, AllowedOrigins: cfg.origins(),
		Worker: "passthrough:///" + s.worker.addr, InternalKey: key,
		NATS: s.bus.conn, Key: s.Key, Retired: retired, Log: log,
		Conformance: cfg.Conformance, Anonymous: s.anonymous, Operator: s.operator,
		RateLimits: cfg.rateLimits(), ListenLimits: cfg.listenLimits(),
		AdminRateLimits: cfg.adminRateLimits(), AuthThrottle: cfg.authThrottle(), Telemetry: s.tel, MaxTokenTTL: cfg.MaxTokenTTL,
		Local: func(fallback grpc.ClientConnInterface) (grpc.ClientConnInterface, error) {
			lc := worker.LocalConfig{Fallback: fallback, Credentials: identity.InternalKey(key)}
			if s.tel != nil {
				var unary grpc.UnaryServerInterceptor
				unary, lc.ClientStats, lc.ServerStats = s.tel.LocalCalls()
				lc.Interceptors = []grpc.UnaryServerInterceptor{unary}
			}
			return s.worker.srv.Local(lc)
		},
	})
	if err != nil {
		return nil, err
	}
	go func() { s.served <- <-s.worker.served }()
	go func() { s.served <- <-s.front.served }()
	return s, nil
}

// bootstrap makes sure the database has its first tenant, owner and
// board, and with --conformance the fixture member that requests without
// a token act as: an assistant sponsored by the owner, with read scope
// only, so an open loopback port cannot change the board.
func (s *system) bootstrap(ctx context.Context) error {
	res, err := tenancy.Bootstrap(ctx, s.DB, tenancy.Config{
		TenantSlug: "default", TenantName: "Default",
		OwnerHandle: "owner", OwnerName: "Owner",
		BoardSlug: "main", BoardName: "Main",
	})
	if err != nil {
		return fmt.Errorf("first start: %w", err)
	}
	s.first = res
	if !s.cfg.Conformance {
		return nil
	}
	m, err := tenancy.FindMember(ctx, s.DB, res.Tenant.Slug, conformanceHandle)
	if domainerr.KindOf(err) == domainerr.NotFound {
		m, err = tenancy.AddMember(ctx, s.DB, res.Tenant.Slug, tenancy.MemberSpec{
			Handle: conformanceHandle, Name: "MCP conformance suite",
			Kind: member.KindAssistant, SponsorHandle: res.Owner.Handle,
		})
	}
	if err != nil {
		return fmt.Errorf("conformance member: %w", err)
	}
	// Requests without a token act with a token recorded like any other,
	// so the worker accepts it and an admin sees (and may revoke) it.
	store, err := tokens.New(tokens.Config{Client: s.DB, MaxTTL: s.cfg.MaxTokenTTL, Logger: s.log})
	if err != nil {
		return err
	}
	_, minted, err := store.Create(ctx, s.Issuer, tokens.CreateRequest{
		Tenant: res.Tenant.Slug, Member: m.ID, Scopes: []string{authz.ScopeRead},
		Label: "requests without a token (--conformance)",
	})
	if err != nil {
		return fmt.Errorf("conformance token: %w", err)
	}
	s.anonymous = &identity.Caller{
		Tenant: res.Tenant.Slug, Member: m.ID, Scopes: []string{authz.ScopeRead}, TokenID: minted.ID,
		Expires: minted.ExpiresAt, Kind: identity.KindMCP,
	}
	return nil
}

// loadRetiredKeys reads the signing keys rotated out, which must exist and
// differ from the current key and from each other.
func loadRetiredKeys(files []string, current *authn.Key) ([]*authn.Key, error) {
	seen := map[string]bool{current.ID: true}
	var keys []*authn.Key
	for _, f := range files {
		k, err := authn.LoadKey(f)
		if err != nil {
			return nil, fmt.Errorf("retired signing key: %w", err)
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("retired signing key %s is the signing key or another retired one: list each rotated-out key once", f)
		}
		seen[k.ID] = true
		keys = append(keys, k)
	}
	return keys, nil
}

// conformanceHandle is the member requests without a token act as, with
// --conformance.
const conformanceHandle = "conformance-suite"

// Close stops the front door (letting calls in flight finish within the
// shutdown grace), then the worker, NATS and the database, and last the
// metrics and the traces still buffered.
func (s *system) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownGrace)
	defer cancel()
	var errs []error
	if s.front != nil {
		if err := s.front.stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("front door: %w", err))
		}
	} else if s.httpLis != nil {
		s.httpLis.Close()
	}
	if s.worker != nil {
		s.worker.stop(ctx)
	}
	if s.bus != nil {
		s.bus.Close()
	}
	if s.DB != nil {
		errs = append(errs, s.DB.Close())
	}
	s.metrics.Close()
	if s.tel != nil {
		shutdownTelemetry(s.tel, s.log)
	}
	if s.releaseData != nil {
		s.releaseData()
	}
	return errors.Join(errs...)
}

// Done returns a channel that yields an error when a server stops on its own.
func (s *system) Done() <-chan error { return s.served }

// Package worker is the worker process's gRPC server: it serves the
// services it is given behind one interceptor chain (identity, scopes,
// roles, progress, error translation), reports health, and drains gracefully.
package worker

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/tokens"
)

// DefaultDrainTimeout bounds Stop's graceful drain when Config names none.
const DefaultDrainTimeout = 15 * time.Second

// Config configures a Server.
type Config struct {
	Logger *slog.Logger // required
	// NATS carries progress back to front doors. When nil, reports are
	// dropped and calls still succeed.
	NATS *nats.Conn
	// Register adds the services to serve, e.g. board.Register.
	Register []func(grpc.ServiceRegistrar)
	// Access reads the caller's current membership on every call; its
	// role must permit what the method needs (see requireRole). Every
	// deployment sets it. Nil turns role checks off and leaves no Access
	// in the context: only for tests of other parts, and for services that
	// neither need a member nor serve AccessService.
	Access AccessResolver
	// Tokens, when set, refuses on every call a caller whose token is not
	// what was issued (no record, or claims that differ from it), was
	// revoked or expired, and notes that the token was used.
	Tokens TokenChecker
	// Sessions checks, on every call, a caller of kind
	// identity.KindSession (a person in the console) against its session
	// in place of Tokens: the session is live and its account is the
	// member's. Nil: such callers are refused.
	Sessions SessionChecker
	// MaxTokenTTL, when positive, also refuses a token recorded to live
	// longer, such as one minted before lifetimes were bounded.
	MaxTokenTTL time.Duration
	// Unnamed lists full method names a front door calls for itself, with
	// no caller: they need the internal key only (e.g. loading the live
	// revocations at start).
	Unnamed []string
	// OperatorServices names services (e.g. "taskwire.admin.v1.AdminService")
	// whose methods a platform operator may call: a call marked with
	// identity.MDOperator (trusted only with the internal key) then needs
	// no caller, skips the scope and role steps, and carries
	// identity.IsOperator in its context; the service authorizes it.
	// Members call them with admin tokens only, and admin tokens call
	// nothing else.
	OperatorServices []string
	// InternalKey, when set, must come with every call (metadata
	// identity.MDInternalKey): only front doors holding it may name callers.
	InternalKey string
	// DrainTimeout bounds how long Stop waits for in-flight calls before it
	// cuts them off; 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Auditor, when set, records every call a member or operator makes in
	// the audit log before the call is answered (see auditCall); nil turns
	// the log off.
	Auditor Auditor
	// AuditQueue bounds the audit events waiting to be written; 0 means
	// DefaultAuditQueue. When it is full, calls wait for room (within
	// their deadlines): no event is dropped.
	AuditQueue int
	// Database, when set, is watched by a circuit breaker (see breaker):
	// while it cannot be reached, calls are refused at once with
	// Unavailable and health is NOT_SERVING. Nil: no breaker; calls that
	// fail to reach the database are still answered Unavailable.
	Database Database
	// Disk, when set, tells when the disk of the database is full: calls
	// that write are then refused at once (see refuseWrites), reads are
	// served. Nil: writes are tried, and fail, on a full disk.
	Disk Disk
	// ServerOptions are added to the gRPC server's, before its own: their
	// interceptors run outside the worker's chain, so they see every call
	// with its final status (metrics, traces: see package telemetry).
	ServerOptions []grpc.ServerOption
}

// TokenChecker tells what a token (by jti) was issued as and whether it
// was revoked, from the database: the truth a revocation broadcast only
// spreads. services/tokens.Store is one, and callercache.Cache over it.
type TokenChecker interface {
	Lookup(ctx context.Context, jti string) (tokens.Record, error)
	Touch(ctx context.Context, jti string) error
}

// SessionChecker tells whether a console caller's session is live and
// its account is the member's, and whether that account is a platform
// operator (services/sessions.Service is one); a refusal is a domainerr
// Unauthenticated error saying what to do.
type SessionChecker interface {
	CheckCaller(ctx context.Context, c identity.Caller) (identity.SessionAccount, error)
}

// Validate reports whether c can build a Server.
func (c Config) Validate() error {
	switch {
	case c.Logger == nil:
		return errors.New("worker: no logger")
	case c.DrainTimeout < 0:
		return errors.New("worker: negative drain timeout")
	case c.AuditQueue < 0:
		return errors.New("worker: negative audit queue")
	case c.MaxTokenTTL < 0:
		return errors.New("worker: negative maximum token lifetime")
	}
	for _, r := range c.Register {
		if r == nil {
			return errors.New("worker: nil register function")
		}
	}
	return nil
}

// Server is a worker's gRPC server.
type Server struct {
	cfg    Config
	log    *slog.Logger
	grpc   *grpc.Server
	health *health.Server
	audit  *auditLog // nil when Config.Auditor is
	// breaker watches Config.Database; nil when it is.
	breaker *breaker
	// methods are the unary methods served, for Local.
	methods localMethods
	chain   grpc.UnaryServerInterceptor // unaryChain as one, for streams (throughChain)

	// draining is cancelled when Stop begins; it ends long-lived streams
	// (health Watch) that would otherwise hold GracefulStop until the
	// drain timeout.
	draining context.Context
	drain    context.CancelFunc
}

// New returns a Server serving cfg.Register's services and the standard
// health service.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.DrainTimeout == 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	s := &Server{cfg: cfg, log: cfg.Logger, health: health.NewServer()}
	s.audit = newAuditLog(cfg.Auditor, cfg.AuditQueue, cfg.Logger)
	s.draining, s.drain = context.WithCancel(context.Background())
	if cfg.Database != nil {
		s.breaker = newBreaker(cfg.Database, cfg.Logger, s.setServing)
	}
	s.chain = chainUnary(s.unaryChain())
	s.grpc = grpc.NewServer(append(slices.Clip(cfg.ServerOptions),
		// Calls run on a pool of goroutines rather than one new goroutine
		// each: a call into SQLite needs a deep stack, which a fresh
		// goroutine grows by copying on every call. Calls beyond the pool
		// still get a goroutine of their own.
		grpc.NumStreamWorkers(streamWorkers),
		// A fixed window, and so no pings to estimate one (see Window).
		grpc.InitialWindowSize(Window),
		grpc.InitialConnWindowSize(Window),
		grpc.ChainUnaryInterceptor(s.unaryChain()...),
		grpc.ChainStreamInterceptor(s.endOnDrain, s.throughChain),
	)...)
	healthpb.RegisterHealthServer(s.grpc, s.health)
	s.methods = localMethods{}
	for _, register := range cfg.Register {
		register(s.grpc)
		register(s.methods) // for Local
	}
	return s, nil
}

// Serve serves gRPC on lis until Stop, reporting SERVING for the server as
// a whole ("") and for each registered service.
func (s *Server) Serve(lis net.Listener) error {
	s.setServing(s.DatabaseReachable())
	return s.grpc.Serve(lis)
}

// setServing sets the health of the server as a whole and of each
// service. After Stop began, health stays NOT_SERVING whatever it is told
// (health.Server.Shutdown).
func (s *Server) setServing(ok bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if ok {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.health.SetServingStatus("", st)
	for name := range s.grpc.GetServiceInfo() {
		s.health.SetServingStatus(name, st)
	}
}

// Stop drains the server: health turns NOT_SERVING (for good), streams
// end, in-flight calls get until ctx ends or DrainTimeout passes to finish,
// and whatever is left is cut off. Then the audit events still queued are
// written, for up to auditFlushTimeout; a call that ends after that fails
// with Unavailable instead of being answered unrecorded.
func (s *Server) Stop(ctx context.Context) {
	s.health.Shutdown()
	s.drain()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DrainTimeout)
	defer cancel()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.log.Warn("worker: drain timed out; cutting off in-flight calls", "err", ctx.Err())
	}
	s.grpc.Stop()
	<-done
	s.audit.stop()
	if s.breaker != nil {
		s.breaker.shut()
	}
}

// endOnDrain gives each stream a context that also ends when Stop begins.
func (s *Server) endOnDrain(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	stop := context.AfterFunc(s.draining, cancel)
	defer stop()
	return handler(srv, &drainingStream{ServerStream: ss, ctx: ctx})
}

type drainingStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (d *drainingStream) Context() context.Context { return d.ctx }

// Draining reports whether Stop has begun: a worker's readiness probe
// turns false with it, as its gRPC health does.
func (s *Server) Draining() bool { return s.draining.Err() != nil }

// Window is the HTTP/2 flow-control window, per call and per connection,
// of the worker's gRPC server; front doors dial with the same. Setting it
// turns off gRPC's estimate of the bandwidth-delay product, for which each
// side pinged the other for nearly every call when calls came one at a
// time (a fifth of a lone caller's CPU across front door and worker).
// Calls and answers are small next to 1 MiB, and a larger one still
// flows: each side grants more window as it reads.
const Window = 1 << 20

// streamWorkers is the size of the gRPC server's pool of goroutines: as
// many calls at once as a busy worker serves.
const streamWorkers = 64

package node

import (
	"cmp"
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"log/slog"
	"net"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/callercache"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/board"
	"github.com/taskwire/taskwire/services/conformance"
	"github.com/taskwire/taskwire/services/decisions"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/oauth"
	"github.com/taskwire/taskwire/services/operations"
	"github.com/taskwire/taskwire/services/sessions"
	"github.com/taskwire/taskwire/services/tokens"
	"github.com/taskwire/taskwire/worker"
)

// Worker is a worker node: the board over the database, served over gRPC.
type Worker struct {
	cfg      WorkerConfig
	srv      *worker.Server
	lis      net.Listener
	served   chan error
	stopKeys func()
	ops      *operations.Service
}

// WorkerConfig is what a worker node is built from.
type WorkerConfig struct {
	DB *ent.Client
	// Database is the pool under DB, watched by the worker's breaker (see
	// worker.Config.Database); nil: none is.
	Database worker.Database
	// Disk tells when the disk of DB is full, so that writes are refused
	// and reads served (see worker.Config.Disk); nil: none does.
	Disk        worker.Disk
	NATS        *nats.Conn
	InternalKey string // calls must carry it to name a caller
	Listen      string // e.g. "127.0.0.1:0"
	Drain       time.Duration
	Log         *slog.Logger // required
	Conformance bool         // also serve the conformance suite's fixtures
	// Issuer mints the tokens the admin API creates; nil: it cannot.
	Issuer *authn.Issuer
	// Keys is the keyring: the Issuer's current key, the public keys
	// served to front doors (KeyService), rotation through the admin API.
	// Nil: the worker serves no keys, and front doors cannot start.
	Keys *keys.Ring
	// Telemetry counts and traces the worker's calls; nil: nothing does.
	Telemetry *telemetry.Telemetry
	// ServerOptions are more options of the gRPC server, e.g. keepalive.
	ServerOptions []grpc.ServerOption
	// MaxTokenTTL is the longest a token may live (--max-token-ttl): longer
	// ones are neither minted nor accepted. 0: authn.DefaultMaxTTL.
	MaxTokenTTL time.Duration
	// Quota bounds what each tenant holds: tasks, members, tokens per
	// member. Zero: no bound.
	Quota quota.Limits
	// Sessions bounds the console's sessions (--session-lifetime,
	// --session-idle-timeout); zero: the defaults of package sessions.
	Sessions SessionLimits
	// Mail emails invitations with links to the console at PublicURL;
	// nil: nothing is emailed, and the inviter passes each link on.
	Mail *mail.Sender
	// PublicURL is the deployment's URL: console passkeys belong to its
	// host, and emailed links point at it. "": the workers offer no
	// passkeys.
	PublicURL string
	// OAuth bounds what the OAuth authorization server issues and says
	// which clients may connect; zero: the defaults of package oauth,
	// any client.
	OAuth OAuthConfig
	// OperationLease is how long an operation running in the background
	// reads as working once this worker stops renewing it (it renews it
	// every fifth of it); zero: operations.DefaultLease.
	OperationLease time.Duration
}

// OAuthConfig is the OAuth authorization server's configuration
// (--oauth-access-ttl, --oauth-clients, --oauth-only-configured).
type OAuthConfig struct {
	Limits  oauth.Limits
	Clients oauth.Clients
}

// SessionLimits bound how long a console session lives.
type SessionLimits struct {
	Lifetime    time.Duration // however active; 0: sessions.DefaultLifetime
	IdleTimeout time.Duration // unused; 0: sessions.DefaultIdleTimeout
}

// Validate refuses a configuration a worker cannot start from, before
// anything is opened.
func (cfg WorkerConfig) Validate() error {
	return requireAll("worker",
		setting{"DB", cfg.DB != nil}, setting{"NATS", cfg.NATS != nil},
		setting{"Log", cfg.Log != nil}, setting{"Listen", cfg.Listen != ""})
}

// NewWorker builds a worker node's services and gRPC server and listens
// on cfg.Listen; Start serves.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, served: make(chan error, 1), stopKeys: func() {}}
	srv, err := w.build()
	if err != nil {
		w.stopKeys()
		return nil, err
	}
	if w.lis, err = net.Listen("tcp", cfg.Listen); err != nil {
		w.stopKeys()
		return nil, err
	}
	w.srv = srv
	return w, nil
}

// build creates the services, the caller cache and the gRPC server.
func (w *Worker) build() (*worker.Server, error) {
	cfg := w.cfg
	broadcast, err := events.New(cfg.NATS)
	if err != nil {
		return nil, err
	}
	// Revocations and role changes made here are forgotten by this
	// worker's caller cache (below) as they are broadcast.
	bus := &localFirst{Bus: broadcast}
	svc, err := w.services(bus)
	if err != nil {
		return nil, err
	}
	// Tokens and roles are asked of on every call; the cache answers
	// repeated questions from memory, forgetting everything on the
	// broadcasts that announce a revocation or role change (and whenever
	// NATS is down).
	callers, err := callercache.New(callercache.Config{NATS: cfg.NATS, Tokens: svc.tokens, Access: svc.roles})
	if err != nil {
		return nil, err
	}
	bus.forget = callers.Forget
	stopKeys := w.stopKeys
	w.stopKeys = func() { stopKeys(); callers.Close() }
	srv, err := worker.New(worker.Config{
		Logger:        cfg.Log.With("component", "worker"),
		NATS:          cfg.NATS,
		Access:        callers,
		Tokens:        callers,
		Sessions:      svc.sessions,
		MaxTokenTTL:   cmp.Or(cfg.MaxTokenTTL, authn.DefaultMaxTTL),
		Auditor:       svc.audit,
		Unnamed:       svc.unnamed,
		InternalKey:   cfg.InternalKey,
		Database:      cfg.Database,
		Disk:          cfg.Disk,
		Register:      svc.register,
		DrainTimeout:  cfg.Drain,
		ServerOptions: grpcServerOptions(cfg.Telemetry, cfg.ServerOptions),

		// Platform operators, who are no member, call the admin API only.
		OperatorServices: []string{admin.ServiceName},
	})
	if err != nil {
		return nil, err
	}
	return srv, w.attachOperations(srv, svc.ops)
}

// attachOperations has the operations this worker runs in the background
// call it as the front door would, through its whole interceptor chain.
func (w *Worker) attachOperations(srv *worker.Server, ops *operations.Service) error {
	lc := worker.LocalConfig{Fallback: unaryOnly{}, Credentials: identity.InternalKey(w.cfg.InternalKey)}
	if w.cfg.Telemetry != nil {
		var unary grpc.UnaryServerInterceptor
		unary, lc.ClientStats, lc.ServerStats = w.cfg.Telemetry.LocalCalls()
		lc.Interceptors = []grpc.UnaryServerInterceptor{unary}
	}
	conn, err := srv.Local(lc)
	if err != nil {
		return err
	}
	ops.Attach(conn)
	w.ops = ops
	return nil
}

// unaryOnly is the fallback of the worker's connection to itself: an
// operation makes one unary call of a method the worker serves, never a
// stream.
type unaryOnly struct{}

func (unaryOnly) Invoke(_ context.Context, method string, _, _ any, _ ...grpc.CallOption) error {
	return status.Errorf(codes.Unimplemented, "worker: %s is not served by this worker", method)
}

func (unaryOnly) NewStream(_ context.Context, _ *grpc.StreamDesc, method string, _ ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Errorf(codes.Unimplemented, "worker: %s cannot run in the background", method)
}

// workerServices are the gRPC services of a worker node and what the
// worker's interceptors need of them.
type workerServices struct {
	register []func(grpc.ServiceRegistrar)
	unnamed  []string // methods called with no caller named
	tokens   *tokens.Store
	roles    *tenancy.Resolver
	ops      *operations.Service
	audit    *audit.Store
	sessions *sessions.Service
}

// services creates the board, access, token, audit and admin services,
// and the key and conformance services when configured.
func (w *Worker) services(bus *localFirst) (*workerServices, error) {
	cfg := w.cfg
	svc, err := w.boardServices(bus)
	if err != nil {
		return nil, err
	}
	// The admin API: tenants, members and tokens, for their admins and
	// the platform operators.
	adminSvc, err := admin.New(admin.Config{Client: cfg.DB, Tokens: svc.tokens, Issuer: cfg.Issuer, Keys: cfg.Keys, Events: bus, Quota: cfg.Quota,
		Mail: cfg.Mail, PublicURL: cfg.PublicURL, Logger: cfg.Log})
	if err != nil {
		return nil, err
	}
	svc.register = append(svc.register, adminSvc.Register)
	svc.unnamed = []string{taskwirev1.TokenService_ListRevocations_FullMethodName}
	// People sign in to the console through the front door, which has no
	// caller to name yet; their sessions then call like tokens.
	if svc.sessions, err = sessions.New(sessions.Config{
		Client: cfg.DB, Audit: svc.audit, Logger: cfg.Log,
		Lifetime: cfg.Sessions.Lifetime, IdleTimeout: cfg.Sessions.IdleTimeout, PublicURL: cfg.PublicURL,
	}); err != nil {
		return nil, err
	}
	svc.register = append(svc.register, svc.sessions.Register)
	svc.unnamed = append(svc.unnamed, sessions.Methods...)
	if err := w.oauthService(svc, bus); err != nil {
		return nil, err
	}
	if cfg.Keys != nil {
		// Front doors load the public keys from the workers, which reload
		// them from the database when told of a rotation.
		svc.register = append(svc.register, cfg.Keys.Register)
		svc.unnamed = append(svc.unnamed, taskwirev1.KeyService_ListPublicKeys_FullMethodName)
		if w.stopKeys, err = cfg.Keys.Follow(cfg.NATS); err != nil {
			w.stopKeys = func() {}
			return nil, err
		}
	}
	if cfg.Conformance {
		fixtures, err := conformance.New(conformance.Config{Events: bus.Bus})
		if err != nil {
			return nil, err
		}
		svc.register = append(svc.register, fixtures.Register)
	}
	return svc, nil
}

// oauthService adds the OAuth authorization server: front doors call it
// with no caller (a client has no token yet; the console passes the
// person's cookie). A worker with no Issuer mints no tokens, so it
// serves none.
func (w *Worker) oauthService(svc *workerServices, bus *localFirst) error {
	cfg := w.cfg
	if cfg.Issuer == nil {
		return nil
	}
	as, err := oauth.New(oauth.Config{
		Client: cfg.DB, Tokens: svc.tokens, Issuer: cfg.Issuer, Sessions: svc.sessions, Audit: svc.audit,
		Limits: cfg.OAuth.Limits, Clients: cfg.OAuth.Clients, Events: bus, Quota: cfg.Quota, Logger: cfg.Log, PublicURL: cfg.PublicURL,
	})
	if err != nil {
		return err
	}
	svc.register = append(svc.register, as.Register)
	svc.unnamed = append(svc.unnamed, oauth.Methods...)
	return nil
}

// boardServices creates the services every worker serves to members.
func (w *Worker) boardServices(bus *localFirst) (*workerServices, error) {
	cfg := w.cfg
	boards, err := board.New(board.Config{Client: cfg.DB, CursorKey: cfg.cursorKey("taskwire list-cursor v1"), Quota: cfg.Quota, Events: bus, Logger: cfg.Log})
	if err != nil {
		return nil, err
	}
	// Every call's role is read from the database by the resolver
	// (through the caller cache); the access service answers from what
	// it read.
	roles, err := tenancy.NewResolver(cfg.DB)
	if err != nil {
		return nil, err
	}
	// Every call's token is checked against its record in the database
	// (issued as it claims, not revoked); revocations are broadcast to
	// front doors and workers.
	tokenStore, err := tokens.New(tokens.Config{Client: cfg.DB, Events: bus, MaxTTL: cfg.MaxTokenTTL, Logger: cfg.Log, Quota: cfg.Quota})
	if err != nil {
		return nil, err
	}
	// Every call a member makes is recorded in the audit log, which owners
	// and admins read (audit_list).
	auditLog, err := audit.New(audit.Config{Client: cfg.DB, CursorKey: cfg.cursorKey("taskwire audit-cursor v1")})
	if err != nil {
		return nil, err
	}
	// whoami reports the tenant's quota use.
	quotas, err := quota.NewReader(cfg.DB, cfg.Quota)
	if err != nil {
		return nil, err
	}
	whoami := access.New(access.Config{Quota: quotas})
	// Calls only a person may allow wait in DecisionService (the console's inbox).
	decided, err := decisions.New(decisions.Config{Client: cfg.DB, Events: bus, Logger: cfg.Log})
	if err != nil {
		return nil, err
	}
	// Long calls of MCP clients run in the background while they poll.
	ops, err := operations.New(operations.Config{Client: cfg.DB, Logger: cfg.Log, Lease: cfg.OperationLease})
	if err != nil {
		return nil, err
	}
	return &workerServices{
		register: []func(grpc.ServiceRegistrar){boards.Register, whoami.Register, tokenStore.Register, auditLog.Register, decided.Register, ops.Register},
		tokens:   tokenStore, roles: roles, audit: auditLog, ops: ops,
	}, nil
}

// Start serves gRPC on the listener in the background; Done reports when
// serving ends on its own.
func (w *Worker) Start() {
	go func() { w.served <- w.srv.Serve(w.lis) }()
}

// Addr is the address the worker's gRPC server listens on.
func (w *Worker) Addr() string { return w.lis.Addr().String() }

// Done yields the error that ended serving.
func (w *Worker) Done() <-chan error { return w.served }

// Draining reports whether Stop has begun: health is NOT_SERVING.
func (w *Worker) Draining() bool { return w.srv.Draining() }

// Outages reports what the worker's breaker on its database counted.
func (w *Worker) Outages() worker.OutageStats { return w.srv.Outages() }

// Local returns a connection to this worker without the network, for a
// front door in the same process (see worker.Server.Local).
func (w *Worker) Local(cfg worker.LocalConfig) (grpc.ClientConnInterface, error) {
	return w.srv.Local(cfg)
}

// Stop drains the worker: health turns NOT_SERVING, calls in flight
// finish within ctx (GracefulStop), then the rest are cut (Stop).
func (w *Worker) Stop(ctx context.Context) {
	if w.ops != nil {
		w.ops.Stop(ctx) // its operations end failed: the client runs them again
	}
	w.srv.Stop(ctx)
	w.stopKeys()
}

// localFirst broadcasts revocations and tenant events on NATS after
// making this worker's caller cache forget what it remembers: the change
// (stored already) then holds from the very next call this worker serves,
// whenever its own subscription hears the broadcast. Other workers forget
// as they hear it.
type localFirst struct {
	*events.Bus
	forget func() // set once the cache exists, before the worker serves
}

// PublishRevocation forgets, then broadcasts.
func (l *localFirst) PublishRevocation(ev events.Revocation) error {
	l.forgetNow()
	return l.Bus.PublishRevocation(ev)
}

// Publish forgets when ev is a tools change (a role change or removal),
// then broadcasts. Resources and prompts changes concern no caller, so
// the cache keeps its answers, as it does when it hears them (callercache).
func (l *localFirst) Publish(tenant string, ev events.Event) error {
	if ev.ChangesCallers() {
		l.forgetNow()
	}
	return l.Bus.Publish(tenant, ev)
}

func (l *localFirst) forgetNow() {
	if l.forget != nil {
		l.forget()
	}
}

// cursorKey authenticates the cursors of lists (purpose names which):
// derived from the internal key, which every worker of a deployment
// shares, so a page's cursor works on the next worker too; without one, a
// random key, whose cursors only this worker accepts.
func (cfg WorkerConfig) cursorKey(purpose string) []byte {
	if cfg.InternalKey != "" {
		if k, err := hkdf.Key(sha256.New, []byte(cfg.InternalKey), nil, purpose, 32); err == nil {
			return k
		}
	}
	return []byte(rand.Text())
}

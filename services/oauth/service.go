package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/tokens"
)

// Sessions turns a console cookie into its account and memberships;
// *sessions.Service is one.
type Sessions interface {
	CheckSession(ctx context.Context, req *taskwirev1.CheckSessionRequest) (*taskwirev1.CheckSessionResponse, error)
}

// Auditor writes audit events in the transaction of the change they
// record; *audit.Store is one.
type Auditor interface {
	RecordTx(ctx context.Context, tx *ent.Tx, e audit.Event) error
}

// Publisher tells the tenant's workers and listen streams that a
// member's tools changed; *events.Bus is one.
type Publisher interface {
	Publish(tenant string, ev events.Event) error
}

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client // required
	// Tokens records the access tokens and revokes them, broadcasting the
	// revocations to every front door (required).
	Tokens *tokens.Store
	// Issuer mints the access tokens; its audience is the one resource
	// clients may ask for (required).
	Issuer   *authn.Issuer
	Sessions Sessions // required: the person behind the consent page
	Audit    Auditor  // required: grants made and revoked are audited
	Limits   Limits
	Clients  Clients
	// Events announces an assistant's changed role (a person who
	// connects a client again after their own role changed); nil: the
	// change applies as workers next read the role.
	Events Publisher
	// Quota bounds the tenant's members, of which a grant may add one
	// (its assistant); zero: no bound.
	Quota  quota.Limits
	Logger *slog.Logger     // required
	Now    func() time.Time // nil means time.Now
	// PublicURL is the deployment's URL: fetches of metadata documents
	// name it in their User-Agent, so a client's host can tell who asks.
	PublicURL string
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("oauth: Config.Client is nil")
	case c.Tokens == nil:
		return errors.New("oauth: Config.Tokens is nil")
	case c.Issuer == nil:
		return errors.New("oauth: Config.Issuer is nil")
	case c.Sessions == nil:
		return errors.New("oauth: Config.Sessions is nil")
	case c.Audit == nil:
		return errors.New("oauth: Config.Audit is nil")
	case c.Logger == nil:
		return errors.New("oauth: Config.Logger is required")
	case c.Quota.Validate() != nil:
		return c.Quota.Validate()
	case c.Limits.AccessTTL < 0 || c.Limits.RefreshIdle < 0 || c.Limits.GrantLifetime < 0 || c.Limits.CodeTTL < 0:
		return errors.New("oauth: a negative lifetime in Config.Limits")
	}
	return c.Clients.Validate()
}

// Service implements taskwirev1.OAuthServiceServer.
type Service struct {
	taskwirev1.UnimplementedOAuthServiceServer
	client     *ent.Client
	tokens     *tokens.Store
	issuer     *authn.Issuer
	sessions   Sessions
	audit      Auditor
	limits     Limits
	clients    Clients
	quota      quota.Limits
	events     Publisher
	configured map[string]*oauthClient
	fetcher    *http.Client
	userAgent  string
	log        *slog.Logger
	clock      func() time.Time
}

var _ taskwirev1.OAuthServiceServer = (*Service)(nil)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Service{
		client: cfg.Client, tokens: cfg.Tokens, issuer: cfg.Issuer, sessions: cfg.Sessions, audit: cfg.Audit,
		limits: cfg.Limits.withDefaults(), clients: cfg.Clients, quota: cfg.Quota, events: cfg.Events, configured: configuredClients(cfg.Clients.Configured),
		fetcher: newFetcher(cfg.Clients.MetadataLoopback), userAgent: "Taskwire OAuth (+" + cfg.PublicURL + ")",
		log: cfg.Logger, clock: cfg.Now,
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	return s, nil
}

// withDefaults is l with each zero field set to its default.
func (l Limits) withDefaults() Limits {
	if l.AccessTTL == 0 {
		l.AccessTTL = DefaultAccessTTL
	}
	if l.RefreshIdle == 0 {
		l.RefreshIdle = DefaultRefreshIdle
	}
	if l.GrantLifetime == 0 {
		l.GrantLifetime = DefaultGrantLifetime
	}
	if l.CodeTTL == 0 {
		l.CodeTTL = DefaultCodeTTL
	}
	return l
}

// Register adds OAuthService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterOAuthServiceServer(r, s)
}

// Methods are OAuthService's full method names: front doors call them
// with no caller (clients have no token yet; the console passes the
// person's cookie), so a worker lists them in its Config.Unnamed.
var Methods = []string{
	taskwirev1.OAuthService_RegisterClient_FullMethodName,
	taskwirev1.OAuthService_CheckAuthorization_FullMethodName,
	taskwirev1.OAuthService_Approve_FullMethodName,
	taskwirev1.OAuthService_Token_FullMethodName,
	taskwirev1.OAuthService_Revoke_FullMethodName,
	taskwirev1.OAuthService_ListGrants_FullMethodName,
	taskwirev1.OAuthService_RevokeGrant_FullMethodName,
}

// now is the clock in UTC to the microsecond, as stored.
func (s *Service) now() time.Time {
	return s.clock().UTC().Truncate(time.Microsecond)
}

// system marks ctx as work across tenants: clients belong to no tenant,
// and a code or refresh token names its grant's tenant only once read.
func system(ctx context.Context) context.Context {
	return privacy.DecisionContext(ctx, privacy.Allow)
}

// done translates what fails into domain errors, once, at the edge of the
// service.
func done[Resp any](ctx context.Context, resp Resp, err error) (Resp, error) {
	if err != nil {
		var zero Resp
		return zero, store.DomainError(ctx, err)
	}
	return resp, nil
}

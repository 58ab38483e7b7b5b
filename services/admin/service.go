// Package admin is the admin API (taskwire.admin.v1.AdminService) over the
// database: tenants, members, tokens and the deployment's signing keys, managed by the owners and admins
// of a tenant or by the deployment's platform operators. Workers serve it;
// front doors authenticate its callers and forward the calls.
//
// A call acts for whoever the worker's chain put into its context: a
// platform operator (identity.IsOperator), or a member of a tenant with
// the scopes of one token (identity.FromContext, identity.AccessFrom). The
// worker checks neither role nor scope for these RPCs (they are no tools);
// every rule of who may do what is here, in authorize.go.
package admin

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/tokens"
)

// Publisher tells front doors of changes; *events.Bus is one.
type Publisher interface {
	Publish(tenant string, ev events.Event) error
}

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client   // required
	Tokens *tokens.Store // required: records, lists and revokes tokens
	// Issuer mints tokens (CreateToken, CreateTenant's first token). Nil
	// on a worker without the signing key: those RPCs then fail with a
	// sentence saying so, and the others work.
	Issuer *authn.Issuer
	// Keys rotates and lists the signing keys (RotateSigningKey,
	// ListSigningKeys). Nil on a worker without a keyring: those RPCs then
	// fail with a sentence saying so.
	Keys *keys.Ring
	// Events tells listen streams that a member's tools changed (a new
	// role, a removal). Nil: nobody is told; tool lists still change at
	// the member's next call.
	Events Publisher
	// Quota bounds what each tenant holds: AddMember checks Members;
	// the token store checks tokens. Zero: no bound.
	Quota quota.Limits
	// Mail emails invitations (InvitePerson) with links to the console at
	// PublicURL. Nil: nothing is emailed; the inviter passes the link on.
	Mail      *mail.Sender
	PublicURL string           // required with Mail
	Now       func() time.Time // nil means time.Now
	Logger    *slog.Logger     // required
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("admin: Config.Client is nil")
	case c.Tokens == nil:
		return errors.New("admin: Config.Tokens is nil")
	case c.Logger == nil:
		return errors.New("admin: Config.Logger is required")
	case c.Mail != nil && c.PublicURL == "":
		return errors.New("admin: Config.PublicURL is required with Config.Mail, for the links invitations carry")
	}
	return c.Quota.Validate()
}

// Service implements adminv1.AdminServiceServer.
type Service struct {
	adminv1.UnimplementedAdminServiceServer
	client   *ent.Client
	tokens   *tokens.Store
	issuer   *authn.Issuer
	keys     *keys.Ring
	events   Publisher
	quota    quota.Limits
	mail     *mail.Sender
	linkBase string // the public URL invitation links start with
	resolver *tenancy.Resolver
	clock    func() time.Time
	log      *slog.Logger
}

var _ adminv1.AdminServiceServer = (*Service)(nil)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	resolver, err := tenancy.NewResolver(cfg.Client)
	if err != nil {
		return nil, err
	}
	s := &Service{
		client: cfg.Client, tokens: cfg.Tokens, issuer: cfg.Issuer, keys: cfg.Keys, events: cfg.Events, quota: cfg.Quota,
		mail: cfg.Mail, linkBase: cfg.PublicURL, resolver: resolver, clock: cfg.Now, log: cfg.Logger,
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	return s, nil
}

// Register adds AdminService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	adminv1.RegisterAdminServiceServer(r, s)
}

// ServiceName is the full name of AdminService, for
// worker.Config.OperatorServices.
var ServiceName = adminv1.AdminService_ServiceDesc.ServiceName

// now is the clock in UTC to the microsecond, as stored.
func (s *Service) now() time.Time {
	return s.clock().UTC().Truncate(time.Microsecond)
}

// call resolves who calls, runs fn for them, and translates what fails
// into domain errors.
func call[Req, Resp any](ctx context.Context, s *Service, req Req,
	fn func(context.Context, actor, Req) (Resp, error)) (Resp, error) {
	a, err := s.actor(ctx)
	if err == nil {
		var resp Resp
		if resp, err = fn(ctx, a, req); err == nil {
			return resp, nil
		}
	}
	// An internal error is logged once, where the worker translates it
	// (in full, under the ref its caller sees), not here.
	var zero Resp
	return zero, store.DomainError(ctx, err)
}

// toolsChanged tells listen streams that member's tools changed. The
// change is stored already and applies from the member's next call; a
// failure is Unavailable, since repeating the change repeats the news.
func (s *Service) toolsChanged(ctx context.Context, tenant string, member int, what string) error {
	if s.events == nil {
		return nil
	}
	if err := s.events.Publish(tenant, events.Event{Kind: events.ToolsChanged, Member: member}); err != nil {
		s.log.ErrorContext(ctx, "admin: publishing a tools change failed", "tenant", tenant, "member", member, "err", err)
		return domainerr.Wrap(domainerr.Unavailable, err,
			"%s is stored and applies from the member's next call, but open listen streams could not be told: repeat it to retry", domainerr.Safe(what))
	}
	return nil
}

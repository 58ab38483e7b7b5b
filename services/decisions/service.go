// Package decisions is the DecisionService: calls only a person may allow.
// An assistant that calls a tool with a confirm question (tasks_delete,
// tasks_restore, and work_approve, which asks assistants only) cannot
// answer that question itself; the front door asks for a decision
// instead, which waits until a person of the tenant, with a role that
// permits the tool, approves or declines it in the console. An
// approved decision allows its one call once: the board uses it up (Use)
// in the same transaction as the change.
package decisions

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TTL is how long a decision waits for a person, and how long an approved
// one may then be used: an answer given long after the question no longer
// speaks for the board as it is.
const TTL = time.Hour

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client // required
	// Events tells the tenant's console pages that a decision was asked
	// for or made (events.DecisionsChanged). Nil: nobody is told; inboxes
	// change on their next load.
	Events Publisher
	// Logger receives the events that could not be published. Required.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Publisher tells front doors of changes; *events.Bus is one.
type Publisher interface {
	Publish(tenant string, ev events.Event) error
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("decisions: Config.Client is nil")
	case c.Logger == nil:
		return errors.New("decisions: Config.Logger is nil (pass slog.New(slog.DiscardHandler) to log nothing)")
	}
	return nil
}

// Service implements taskwirev1.DecisionServiceServer.
type Service struct {
	taskwirev1.UnimplementedDecisionServiceServer
	cfg Config
}

var _ taskwirev1.DecisionServiceServer = (*Service)(nil)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}, nil
}

// Register adds DecisionService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterDecisionServiceServer(r, s)
}

// now is the time of the clock, as the database stores it.
func (s *Service) now() time.Time {
	return s.cfg.Now().UTC().Truncate(time.Microsecond)
}

// caller is who makes one call: what the worker resolved of the verified
// caller, and the caller's token.
type caller struct {
	identity.Access
	token identity.Caller
}

func (c caller) human() bool { return c.Kind == "human" }

// call resolves the caller of ctx, runs fn with ctx scoped to the
// caller's tenant, and translates what fails into domain errors.
func call[Req, Resp any](ctx context.Context, s *Service, req Req, fn func(context.Context, caller, Req) (Resp, error)) (Resp, error) {
	c, ctx, err := s.resolve(ctx)
	if err == nil {
		var resp Resp
		if resp, err = fn(ctx, c, req); err == nil {
			return resp, nil
		}
	}
	var zero Resp
	return zero, store.DomainError(ctx, err)
}

// resolve reads the Access the worker resolved for this call, or, without
// one (a test calling the service directly), reads it itself.
func (s *Service) resolve(ctx context.Context) (caller, context.Context, error) {
	c, ok := identity.FromContext(ctx)
	if !ok || c.Validate() != nil {
		return caller{}, ctx, domainerr.New(domainerr.Unauthenticated, "No verified caller: sign in as a member of a tenant")
	}
	if a, ok := identity.AccessFrom(ctx); ok && a.Tenant == c.Tenant && a.MemberID == c.Member {
		return caller{Access: a, token: c}, tenantscope.NewContext(ctx, a.TenantID), nil
	}
	t, m, ctx, err := tenancy.Caller(ctx, s.cfg.Client, c)
	if err != nil {
		return caller{}, ctx, err
	}
	a := identity.Access{TenantID: t.ID, Tenant: t.Slug, TenantName: t.Name, MemberID: m.ID,
		Handle: m.Handle, DisplayName: m.DisplayName, Kind: string(m.Kind), Role: string(m.Role)}
	if m.SponsorID != nil {
		a.SponsorID = *m.SponsorID
	}
	return caller{Access: a, token: c}, ctx, nil
}

// changed tells the tenant's console pages that decision id changed. The
// change is committed already: a failure is logged, and inboxes catch up
// on their next load.
func (s *Service) changed(ctx context.Context, tenant, id string) {
	if s.cfg.Events == nil {
		return
	}
	if err := s.cfg.Events.Publish(tenant, events.Event{Kind: events.DecisionsChanged, Ref: id}); err != nil {
		s.cfg.Logger.WarnContext(ctx, "decisions: change not published", "decision", id, "err", err)
	}
}

// Package sessions signs people in to the console
// (taskwire.v1.SessionService): local accounts with argon2id passwords,
// one-time sign-in links (the first start's, invitations, ones an admin
// made), and the sessions behind the console's cookies. Workers serve it to
// front doors, which call it with the internal key and no caller; the
// worker also asks it, on every call a console session makes, whether the
// session is still live (CheckCaller).
//
// A session belongs to an account, not a tenant: the account's memberships
// are the members naming it (member.account_id). Every sign-in, failed
// sign-in on a known account and sign-out is written to the audit log of
// each tenant the account is a member of.
package sessions

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
)

// The defaults of Config.
const (
	DefaultLifetime    = 7 * 24 * time.Hour
	DefaultIdleTimeout = 12 * time.Hour
)

// TouchEvery is how often at most CheckSession writes a session's last
// use: often enough for the idle timeout, rarely enough that a busy page
// does not write on every request.
const TouchEvery = time.Minute

// Auditor writes audit events; services/audit.Store is one.
type Auditor interface {
	RecordAll(ctx context.Context, events []audit.Event) (skipped int, err error)
	RecordTx(ctx context.Context, tx *ent.Tx, e audit.Event) error
}

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client  // required
	Audit  Auditor      // required: sign-ins and sign-outs are audited
	Logger *slog.Logger // required
	// Lifetime is the longest a session lives, however active; 0 means
	// DefaultLifetime.
	Lifetime time.Duration
	// IdleTimeout ends a session unused for that long; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	Now         func() time.Time // nil means time.Now
	// PublicURL is the deployment's URL: passkeys belong to its host (the
	// WebAuthn relying party) and are accepted only from its origin. ""
	// or an IP address: the workers offer no passkeys.
	PublicURL string
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("sessions: Config.Client is nil")
	case c.Audit == nil:
		return errors.New("sessions: Config.Audit is nil")
	case c.Logger == nil:
		return errors.New("sessions: Config.Logger is required")
	case c.Lifetime < 0:
		return errors.New("sessions: negative session lifetime")
	case c.IdleTimeout < 0:
		return errors.New("sessions: negative session idle timeout")
	}
	return nil
}

// Service implements taskwirev1.SessionServiceServer.
type Service struct {
	taskwirev1.UnimplementedSessionServiceServer
	client   *ent.Client
	audit    Auditor
	log      *slog.Logger
	lifetime time.Duration
	idle     time.Duration
	clock    func() time.Time
	rp       *webauthn.WebAuthn // nil: no passkeys
	// dummy is a hash verified when no account's hash is, so that an
	// unknown email costs as much time as a wrong password.
	dummy string
}

var _ taskwirev1.SessionServiceServer = (*Service)(nil)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Service{
		client: cfg.Client, audit: cfg.Audit, log: cfg.Logger,
		lifetime: cfg.Lifetime, idle: cfg.IdleTimeout, clock: cfg.Now,
	}
	if s.lifetime == 0 {
		s.lifetime = DefaultLifetime
	}
	if s.idle == 0 {
		s.idle = DefaultIdleTimeout
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.dummy = dummyHash()
	if cfg.PublicURL == "" {
		return s, nil
	}
	var err error
	if s.rp, err = newRelyingParty(cfg.PublicURL); err != nil {
		s.log.Info("sessions: console passkeys are off: "+err.Error(), "public_url", cfg.PublicURL)
	}
	return s, nil
}

// Register adds SessionService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterSessionServiceServer(r, s)
}

// Methods are SessionService's full method names: front doors call them
// with no caller, so a worker lists them in its Config.Unnamed.
var Methods = []string{
	taskwirev1.SessionService_SignIn_FullMethodName,
	taskwirev1.SessionService_CheckSession_FullMethodName,
	taskwirev1.SessionService_SignOut_FullMethodName,
	taskwirev1.SessionService_SetPassword_FullMethodName,
	taskwirev1.SessionService_BeginPasskeyRegistration_FullMethodName,
	taskwirev1.SessionService_FinishPasskeyRegistration_FullMethodName,
	taskwirev1.SessionService_BeginPasskeySignIn_FullMethodName,
	taskwirev1.SessionService_ListPasskeys_FullMethodName,
	taskwirev1.SessionService_DeletePasskey_FullMethodName,
}

// now is the clock in UTC to the microsecond, as stored.
func (s *Service) now() time.Time {
	return s.clock().UTC().Truncate(time.Microsecond)
}

// system marks ctx as work across tenants: accounts and sessions belong to
// no tenant, and an account's memberships span tenants.
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

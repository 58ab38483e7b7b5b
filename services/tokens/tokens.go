// Package tokens records the access tokens Taskwire mints, so they can be
// listed and revoked, and tells workers and front doors which ones are
// revoked. The database keeps each token's id (its jti) and metadata,
// never the token: a token is shown once, when it is created.
//
// A token means what was issued: workers look its record up on every call
// (Store.Lookup), compare the claims with it (Record.Mismatch) and refuse
// a revoked one; the database is the authority. Front doors have no
// database; they keep a Revocations set, filled at start from a worker
// (TokenService.ListRevocations) and kept current over NATS, and refuse
// revoked tokens before any call reaches a worker.
package tokens

import (
	"errors"
	"log/slog"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/quota"
)

// Publisher broadcasts revocations to the front doors; *events.Bus is one.
type Publisher interface {
	PublishRevocation(events.Revocation) error
}

// Config holds what a Store needs.
type Config struct {
	Client *ent.Client // required, e.g. from store.Open
	// Events broadcasts revocations. When nil (a command-line tool with no
	// NATS), revocations are stored only: workers refuse the tokens at
	// once, front doors when they next load the revocations.
	Events Publisher
	// MaxTTL is the longest a token may live (--max-token-ttl); 0 means
	// authn.DefaultMaxTTL. Longer lifetimes are refused.
	MaxTTL time.Duration
	// Quota bounds the live tokens of each member (its TokensPerMember);
	// zero: no bound.
	Quota  quota.Limits
	Now    func() time.Time // nil means time.Now; tests set a clock
	Logger *slog.Logger     // required
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("tokens: Config.Client is nil")
	case c.MaxTTL < 0:
		return errors.New("tokens: Config.MaxTTL is negative")
	case c.Logger == nil:
		return errors.New("tokens: Config.Logger is required")
	}
	return c.Quota.Validate()
}

// Store records tokens in the database and answers about them.
type Store struct {
	client  *ent.Client
	events  Publisher
	quota   quota.Limits
	clock   func() time.Time
	log     *slog.Logger
	maxTTL  time.Duration
	touched touches
}

// New returns a Store for cfg.
func New(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Store{client: cfg.Client, events: cfg.Events, quota: cfg.Quota, clock: cfg.Now, log: cfg.Logger, maxTTL: cfg.MaxTTL}
	if s.maxTTL == 0 {
		s.maxTTL = authn.DefaultMaxTTL
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.touched.seen = map[string]time.Time{}
	return s, nil
}

// now is the clock in UTC to the microsecond, as the schema's defaults
// are, so what is written equals what is read back on every backend.
func (s *Store) now() time.Time {
	return s.clock().UTC().Truncate(time.Microsecond)
}

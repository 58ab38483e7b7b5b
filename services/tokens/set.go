package tokens

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/follow"
)

// RevocationsConfig configures a Revocations set.
type RevocationsConfig struct {
	// Load returns the live revocations: Store.LiveRevocations where there
	// is a database, FromWorker(conn) in a front door. Required.
	Load   Loader
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // required
}

// Validate reports whether c is complete.
func (c RevocationsConfig) Validate() error {
	switch {
	case c.Load == nil:
		return errors.New("tokens: RevocationsConfig.Load is nil")
	case c.Logger == nil:
		return errors.New("tokens: RevocationsConfig.Logger is required")
	}
	return nil
}

// Revocations is a front door's memory of revoked tokens: loaded once at
// Start, kept current from NATS, loaded again whenever the NATS connection
// comes back (messages sent while it was away are lost). Entries are
// dropped after their tokens expire, so it holds only live revocations.
// It is safe for concurrent use; Has is a map look-up under a read lock.
type Revocations struct {
	load  Loader
	clock func() time.Time
	log   *slog.Logger

	mu      sync.RWMutex
	tokens  map[string]time.Time // jti → when to forget it
	members map[memberKey]memberEntry
	swept   time.Time

	reload *follow.Loop // reloads when asked, until one succeeds
}

type memberKey struct {
	tenant string
	member int
}

// memberEntry revokes a member's tokens issued before before.
type memberEntry struct {
	before time.Time
	forget time.Time
}

// NewRevocations returns an empty set; Start fills it.
func NewRevocations(cfg RevocationsConfig) (*Revocations, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Revocations{
		load: cfg.Load, clock: cfg.Now, log: cfg.Logger,
		tokens: map[string]time.Time{}, members: map[memberKey]memberEntry{},
	}
	if r.clock == nil {
		r.clock = time.Now
	}
	var err error
	r.reload, err = follow.New(follow.Config{
		Load: r.Load, Logger: r.log,
		Failed: "tokens: reloading revocations failed; retrying",
		Loaded: "tokens: revocations reloaded",
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Has reports whether the token with id jti is revoked.
func (r *Revocations) Has(jti string) bool {
	r.mu.RLock()
	forget, ok := r.tokens[jti]
	r.mu.RUnlock()
	return ok && r.clock().Before(forget)
}

// HasMember reports whether every token of member in tenant issued at
// issuedAt (the token's iat) is revoked by RevokeMember. A zero issuedAt,
// unknown, counts as before any revocation.
func (r *Revocations) HasMember(tenant string, member int, issuedAt time.Time) bool {
	r.mu.RLock()
	e, ok := r.members[memberKey{tenant, member}]
	r.mu.RUnlock()
	return ok && r.clock().Before(e.forget) && issuedAt.Before(e.before)
}

// Refuses reports whether the token of c, issued at issuedAt, is revoked,
// by its id or by its member's revocation: what a verifier asks.
func (r *Revocations) Refuses(c identity.Caller, issuedAt time.Time) bool {
	return r.Has(c.TokenID) || r.HasMember(c.Tenant, c.Member, issuedAt)
}

// Apply adds one revocation heard on NATS.
func (r *Revocations) Apply(ev events.Revocation) {
	if !ev.Valid() {
		return
	}
	forget := time.Unix(ev.Expires, 0).Add(expiryGrace)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.JTI != "" {
		r.tokens[ev.JTI] = later(r.tokens[ev.JTI], forget)
	} else {
		k := memberKey{ev.Tenant, ev.Member}
		old := r.members[k]
		r.members[k] = memberEntry{before: later(old.before, time.Unix(ev.Before, 0)), forget: later(old.forget, forget)}
	}
	r.sweepLocked()
}

// Load adds the revocations the loader returns. Entries already in the set
// stay: a revocation is never undone, and member entries exist only here.
func (r *Revocations) Load(ctx context.Context) error {
	live, err := r.load(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for jti, exp := range live {
		r.tokens[jti] = later(r.tokens[jti], exp.Add(expiryGrace))
	}
	r.sweepLocked()
	return nil
}

// sweepLocked drops the entries of expired tokens, at most once a minute.
func (r *Revocations) sweepLocked() {
	now := r.clock()
	if now.Sub(r.swept) < time.Minute {
		return
	}
	r.swept = now
	for jti, forget := range r.tokens {
		if !now.Before(forget) {
			delete(r.tokens, jti)
		}
	}
	for k, e := range r.members {
		if !now.Before(e.forget) {
			delete(r.members, k)
		}
	}
}

// Len returns how many tokens and members the set holds, expired entries
// not yet swept included.
func (r *Revocations) Len() (tokens, members int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tokens), len(r.members)
}

// Start subscribes to revocations on nc, then loads the live ones (in that
// order, so none published meanwhile is missed), and reloads them each
// time nc reconnects: it chains onto nc's reconnect handler, so set your
// own handler before Start (or leave nc nil and call Reconnected from it).
// With a nil nc the set is loaded once and kept current by nothing but
// Reconnected. It returns an error if the first load fails; stop ends the
// subscription and the reloads.
func (r *Revocations) Start(ctx context.Context, nc *nats.Conn) (stop func(), err error) {
	unsubscribe := func() {}
	if nc != nil {
		bus, err := events.New(nc)
		if err != nil {
			return nil, err
		}
		if unsubscribe, err = bus.SubscribeRevocations(r.Apply); err != nil {
			return nil, err
		}
	}
	if err := r.Load(ctx); err != nil {
		unsubscribe()
		return nil, err
	}
	if nc != nil {
		follow.OnReconnect(nc, r.Reconnected)
	}
	r.reload.Start()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.reload.Stop()
			unsubscribe()
		})
	}, nil
}

// Reconnected asks for a reload in the background, for revocations
// published while the NATS connection was away. It never blocks, so it can
// be called from a NATS callback.
func (r *Revocations) Reconnected() { r.reload.Ask() }

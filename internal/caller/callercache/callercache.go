// Package callercache lets a worker answer the two questions it asks on
// every call, "what was this token issued as, and is it still good?" and
// "what is this member now?", from memory instead of the database, without
// letting a revocation, removal or role change take effect any later than
// it does without it.
//
// It remembers only good answers (the record of a live token, a resolved
// Access), and forgets all of them at once when anything might have
// changed them:
//
//   - a revocation on events.RevocationsSubject (a token, or every token
//     of a member), or a tools change on any tenant's events subject
//     (services/admin publishes one for every role change and removal),
//     heard over NATS: the same broadcasts that tell front doors, so a
//     worker's memory is as fresh as theirs;
//   - its NATS connection dropping (while it is down, every question goes
//     to the database) or reconnecting (what was said meanwhile is lost);
//   - a change made in this process (Forget), which must apply from the
//     very next call, before NATS brings its broadcast back;
//   - MaxAge after an answer was read, which bounds a change made to the
//     database behind the API's back.
//
// An answer read while a change was being announced is never kept: each
// answer is tagged with the epoch it was read in, and every change starts
// a new epoch.
package callercache

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/services/tokens"
)

// DefaultMaxAge is how long an answer is kept when Config.MaxAge is 0.
const DefaultMaxAge = 30 * time.Second

// maxEntries bounds each map: past it, the cache starts over, which costs
// one database read per caller and keeps memory bounded however many
// tokens and members call.
const maxEntries = 100_000

// Tokens is what a worker asks of every call's token (services/tokens.Store
// answers from the database).
type Tokens interface {
	Lookup(ctx context.Context, jti string) (tokens.Record, error)
	Touch(ctx context.Context, jti string) error
}

// Resolver reads what a caller is on its tenant (internal/tenancy.Resolver
// reads it from the database).
type Resolver interface {
	Resolve(ctx context.Context, c identity.Caller) (identity.Access, error)
}

// Config holds what a Cache needs.
type Config struct {
	NATS   *nats.Conn // required: where changes are heard
	Tokens Tokens     // required
	Access Resolver   // required
	// MaxAge bounds how long an answer is kept; 0 means DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.NATS == nil:
		return errors.New("callercache: Config.NATS is nil")
	case c.Tokens == nil:
		return errors.New("callercache: Config.Tokens is nil")
	case c.Access == nil:
		return errors.New("callercache: Config.Access is nil")
	case c.MaxAge < 0:
		return errors.New("callercache: Config.MaxAge is negative")
	}
	return nil
}

// Cache answers for Config.Tokens and Config.Access from memory where it
// safely can. It is a worker.TokenChecker and a worker.AccessResolver.
type Cache struct {
	nc     *nats.Conn
	tokens Tokens
	access Resolver
	maxAge time.Duration
	now    func() time.Time
	subs   []*nats.Subscription

	mu         sync.Mutex
	epoch      uint64
	reconnects uint64                               // of nc, when the epoch began
	live       map[string]entry[tokens.Record]      // jti → record of a live token
	members    map[memberKey]entry[identity.Access] // caller → Access
}

type memberKey struct {
	tenant string
	member int
}

// entry is an answer and when it was read.
type entry[V any] struct {
	v      V
	readAt time.Time
}

// New returns a Cache for cfg, listening for changes already: what is
// announced after New returns is heard.
func New(cfg Config) (*Cache, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Cache{
		nc: cfg.NATS, tokens: cfg.Tokens, access: cfg.Access,
		maxAge: cfg.MaxAge, now: cfg.Now,
		live: map[string]entry[tokens.Record]{}, members: map[memberKey]entry[identity.Access]{},
	}
	if c.maxAge == 0 {
		c.maxAge = DefaultMaxAge
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.reconnects = c.nc.Stats().Reconnects
	for _, subj := range []string{events.RevocationsSubject, events.SubjectPrefix + "*"} {
		sub, err := c.nc.Subscribe(subj, c.heard)
		if err == nil {
			// Never drop a change as a slow consumer: the handler is quick,
			// and a dropped change would be a change not applied.
			err = sub.SetPendingLimits(-1, -1)
		}
		if err != nil {
			c.Close()
			return nil, err
		}
		c.subs = append(c.subs, sub)
	}
	if err := c.nc.Flush(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close stops listening; from then on nothing is remembered.
func (c *Cache) Close() {
	for _, sub := range c.subs {
		sub.Unsubscribe()
	}
	c.mu.Lock()
	c.subs = nil
	c.forget()
	c.mu.Unlock()
}

// heard forgets everything on news of a change. Which tokens or members
// a message concerns does not matter: changes are rare, and one read per
// caller afterwards is cheap.
func (c *Cache) heard(m *nats.Msg) {
	if m.Subject != events.RevocationsSubject {
		var ev events.Event
		if json.Unmarshal(m.Data, &ev) == nil && !ev.ChangesCallers() {
			return // resources and prompts: no caller changed
		}
	}
	c.mu.Lock()
	c.forget()
	c.mu.Unlock()
}

// Forget forgets everything now, as news of a change does: whoever makes
// a change in this process calls it once the change is stored, so the
// very next call reads it, whenever NATS brings the broadcast back.
func (c *Cache) Forget() {
	c.mu.Lock()
	c.forget()
	c.mu.Unlock()
}

// forget starts a new epoch with nothing remembered; c.mu is held.
func (c *Cache) forget() {
	c.epoch++
	clear(c.live)
	clear(c.members)
}

// current returns the epoch answers may be kept in and read from, and
// false when none may: NATS is down, or the cache is closed. A reconnect
// since the epoch began starts a new one, as changes may have been
// announced while the connection was down. c.mu is held.
func (c *Cache) current() (uint64, bool) {
	if c.subs == nil || c.nc.Status() != nats.CONNECTED {
		return 0, false
	}
	if r := c.nc.Stats().Reconnects; r != c.reconnects {
		c.reconnects = r
		c.forget()
	}
	return c.epoch, true
}

// Lookup answers from memory for a token found live less than MaxAge ago
// in the current epoch, and otherwise asks Config.Tokens, remembering the
// record of a live token. A record never changes but for its revocation,
// which makes the cache forget.
func (c *Cache) Lookup(ctx context.Context, jti string) (tokens.Record, error) {
	return remembered(c, c.live, jti, func(r tokens.Record) bool { return r.Known() && !r.Revoked },
		func() (tokens.Record, error) { return c.tokens.Lookup(ctx, jti) })
}

// Touch passes through: Config.Tokens writes at most once a minute per
// token already.
func (c *Cache) Touch(ctx context.Context, jti string) error {
	return c.tokens.Touch(ctx, jti)
}

// Resolve answers like Lookup, for a caller's Access.
func (c *Cache) Resolve(ctx context.Context, who identity.Caller) (identity.Access, error) {
	return remembered(c, c.members, memberKey{who.Tenant, who.Member}, func(identity.Access) bool { return true },
		func() (identity.Access, error) { return c.access.Resolve(ctx, who) })
}

// remembered answers for key from m when it was read less than MaxAge ago
// in the current epoch; otherwise it reads the answer and keeps it, if
// keep says it may be and no change was announced since the read began.
func remembered[K comparable, V any](c *Cache, m map[K]entry[V], key K, keep func(V) bool, read func() (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	epoch, ok := c.current()
	if ok {
		if e, hit := m[key]; hit && now.Sub(e.readAt) < c.maxAge {
			c.mu.Unlock()
			return e.v, nil
		}
	}
	c.mu.Unlock()
	v, err := read()
	if err == nil && ok && keep(v) {
		c.mu.Lock()
		if e, still := c.current(); still && e == epoch {
			if len(m) >= maxEntries {
				clear(m)
			}
			m[key] = entry[V]{v, now}
		}
		c.mu.Unlock()
	}
	return v, err
}

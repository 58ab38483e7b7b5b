package frontdoor

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

// RateLimit is one level of rate limits: every bucket of the level holds
// Burst calls when full and refills by PerSecond calls a second.
type RateLimit struct {
	// PerSecond is the sustained rate; 0 turns the level off.
	PerSecond float64
	// Burst is how many calls a full bucket allows at once; at least 1
	// when PerSecond is set.
	Burst int
}

func (l RateLimit) on() bool { return l.PerSecond > 0 }

// String says l as the refusals of the MCP endpoint and the admin API
// do: "10/s, burst 20".
func (l RateLimit) String() string {
	return strconv.FormatFloat(l.PerSecond, 'g', 4, 64) + "/s, burst " + strconv.Itoa(l.Burst)
}

// share is the part of l that one of n replicas enforces: the rate
// divided by n, the burst too, rounded up. n replicas together then allow
// l's rate, and a burst at most n-1 calls above l's.
func (l RateLimit) share(n int) RateLimit {
	if !l.on() || n <= 1 {
		return l
	}
	return RateLimit{PerSecond: l.PerSecond / float64(n), Burst: (l.Burst + n - 1) / n}
}

// RateLimits configures a RateLimiter. Each level keeps a token bucket
// per subject (the token's jti; the tenant) and operation: the JSON-RPC
// method, and for tools/call the tool ("tools/call:tasks_create"), so a
// chatty tool does not starve the others and listing does not starve
// calling. A request takes one call from its token's bucket and one from
// its tenant's; the first that is empty refuses it.
type RateLimits struct {
	Token  RateLimit
	Tenant RateLimit
	// Replicas is how many front doors serve the endpoint. The buckets
	// live in each front door's memory, so each enforces 1/Replicas of
	// every limit (RateLimit.share). Default 1.
	Replicas int
	// MaxBuckets caps the buckets held. Default DefaultMaxBuckets.
	MaxBuckets int
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}

// DefaultMaxBuckets is the bucket cap when RateLimits.MaxBuckets is zero.
// A bucket takes about 300 bytes (its limiter, key, list element and map
// entry; TestBucketMemory measures it), so the cap bounds the limiter to
// about 30 MB.
const DefaultMaxBuckets = 100_000

// Validate reports the first problem of c that NewRateLimiter would
// refuse.
func (c RateLimits) Validate() error {
	for _, l := range []struct {
		name  string
		limit RateLimit
	}{{"Token", c.Token}, {"Tenant", c.Tenant}} {
		switch ps, burst := l.limit.PerSecond, l.limit.Burst; {
		case math.IsNaN(ps) || math.IsInf(ps, 0) || ps < 0:
			return fmt.Errorf("frontdoor: RateLimits.%s.PerSecond is %v; want a number of calls a second, or 0 for no limit", l.name, ps)
		case l.limit.on() && (burst < 1 || burst > math.MaxInt32):
			return fmt.Errorf("frontdoor: RateLimits.%s.Burst is %d; want at least 1 call", l.name, burst)
		}
	}
	switch {
	case c.Replicas < 0:
		return fmt.Errorf("frontdoor: RateLimits.Replicas is %d; want the number of front doors", c.Replicas)
	case c.MaxBuckets < 0:
		return fmt.Errorf("frontdoor: RateLimits.MaxBuckets is %d", c.MaxBuckets)
	}
	return nil
}

// RateLimiter holds the token buckets of one front door. Buckets are made
// when first needed and dropped once they have refilled (bucketSet). It
// is safe for concurrent use.
type RateLimiter struct {
	bucketSet
	levels []limitLevel
}

// limitLevel is one level of limits with the subject it keys buckets by.
type limitLevel struct {
	name    string // "token" or "tenant"
	limit   RateLimit
	subject func(identity.Caller) string
}

// NewRateLimiter returns a RateLimiter for c.
func NewRateLimiter(c RateLimits) (*RateLimiter, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rl := &RateLimiter{bucketSet: newBucketSet(c.MaxBuckets, c.Now)}
	if l := c.Token.share(c.Replicas); l.on() {
		rl.levels = append(rl.levels, limitLevel{"token", l, func(c identity.Caller) string { return c.TokenID }})
	}
	if l := c.Tenant.share(c.Replicas); l.on() {
		rl.levels = append(rl.levels, limitLevel{"tenant", l, func(c identity.Caller) string { return c.Tenant }})
	}
	return rl, nil
}

// Refusal is a call refused because one of its buckets is empty.
type Refusal struct {
	Level string        // "token" or "tenant"
	Op    string        // the operation, e.g. "tools/call:tasks_create"
	Limit RateLimit     // what the bucket enforces
	Wait  time.Duration // until it holds a call again
}

// RetryAfter is Wait in whole seconds, at least 1, as the Retry-After
// header carries it.
func (r *Refusal) RetryAfter() int64 { return RetryAfter(r.Wait) }

// RetryAfter is wait in whole seconds, rounded up and at least 1, as the
// Retry-After header carries it: for every refusal that says when to
// retry, a rate limit's (Refusal) or the AuthThrottle's.
func RetryAfter(wait time.Duration) int64 {
	return max(1, int64(math.Ceil(wait.Seconds())))
}

// Admit charges one call of op to c's buckets, its token's (c.TokenID)
// and its tenant's (c.Tenant), and returns nil; or it returns the
// refusal of the first that is empty, and takes nothing. A level whose
// subject is empty has no bucket: nothing to charge. The admin API uses
// it, with credentials and tenants of its own (frontdoor/admin).
func (rl *RateLimiter) Admit(c identity.Caller, op string) *Refusal {
	_, over := rl.take(c, op)
	return over
}

// charge is what one admitted request took from its buckets.
type charge struct {
	rl     *RateLimiter
	keys   []string
	budget access.Budget // what the buckets hold after it
}

// take charges one call of op to c's buckets, or says which is empty and
// for how long; a refused request takes nothing.
func (rl *RateLimiter) take(c identity.Caller, op string) (*charge, *Refusal) {
	now := rl.now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	defer rl.trim(now)
	ch := &charge{rl: rl}
	var taken []*rate.Reservation
	for _, lv := range rl.levels {
		subject := lv.subject(c)
		if subject == "" {
			continue
		}
		b := rl.bucket(lv.name+"\x00"+subject+"\x00"+op, lv.limit)
		r := b.lim.ReserveN(now, 1) // always OK: the burst is at least 1
		if wait := r.DelayFrom(now); wait > 0 {
			for _, t := range append(taken, r) {
				t.CancelAt(now)
			}
			return nil, &Refusal{Level: lv.name, Op: op, Limit: lv.limit, Wait: wait}
		}
		taken = append(taken, r)
		ch.keys = append(ch.keys, b.key)
		left := &access.BudgetLevel{Remaining: int(b.lim.TokensAt(now)), PerSecond: lv.limit.PerSecond, Burst: lv.limit.Burst}
		if lv.name == "token" {
			ch.budget.Token = left
		} else {
			ch.budget.Tenant = left
		}
	}
	return ch, nil
}

// giveBack returns the calls ch took: its request was refused for another
// reason than a rate limit.
func (ch *charge) giveBack() {
	rl := ch.rl
	now := rl.now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	for _, key := range ch.keys {
		e, ok := rl.buckets[key]
		if !ok {
			continue // dropped since: a new bucket is full anyway
		}
		lim := e.Value.(*bucket).lim
		// A rate.Reservation can no longer be cancelled once its time
		// has come, and this one's came when the request was admitted.
		// Allowing -1 call puts one call back; the limiter never lets a
		// bucket hold more than its burst.
		lim.AllowN(now, -1)
		if full(lim, now) {
			rl.drop(e)
		}
	}
}

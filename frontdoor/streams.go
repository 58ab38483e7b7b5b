package frontdoor

import (
	"fmt"
	"sync"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// StreamLimits bounds the subscriptions/listen streams one front door
// holds open at once: each costs the front door memory and two goroutines
// for as long as its client keeps it, and opening one is cheap, so the
// rate limits alone let a tenant pile up thousands. Zero turns a level
// off.
//
// The counts are per front door, not a share of a deployment-wide limit
// as the rate limits are: a stream stays on the replica that took it, what
// it costs is that replica's, and balancers do not spread long-lived
// streams evenly, so a share would refuse well-behaved clients at random.
// A deployment of N front doors holds at most N times the limits.
type StreamLimits struct {
	PerToken  int // open streams of one token (by jti)
	PerTenant int // open streams of all the tokens of one tenant
}

// Validate reports a negative limit.
func (l StreamLimits) Validate() error {
	if l.PerToken < 0 || l.PerTenant < 0 {
		return fmt.Errorf("frontdoor: StreamLimits %+v: want 0 (no limit) or more streams", l)
	}
	return nil
}

// streamCounts counts the open listen streams of one front door by token
// and by tenant. It is safe for concurrent use.
type streamCounts struct {
	limits StreamLimits

	mu       sync.Mutex
	byToken  map[string]int
	byTenant map[string]int
}

func newStreamCounts(l StreamLimits) *streamCounts {
	return &streamCounts{limits: l, byToken: map[string]int{}, byTenant: map[string]int{}}
}

// open counts a new stream of c, or refuses it when c's token or tenant
// holds its limit already. release, called once when the stream ends,
// frees its place.
func (s *streamCounts) open(c identity.Caller) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.limits.PerToken > 0 && s.byToken[c.TokenID] >= s.limits.PerToken:
		return nil, &tooManyStreams{level: "token", max: s.limits.PerToken}
	case s.limits.PerTenant > 0 && s.byTenant[c.Tenant] >= s.limits.PerTenant:
		return nil, &tooManyStreams{level: "tenant", tenant: c.Tenant, max: s.limits.PerTenant}
	}
	s.byToken[c.TokenID]++
	s.byTenant[c.Tenant]++
	var once sync.Once
	return func() { once.Do(func() { s.close(c) }) }, nil
}

// close frees a stream's place, forgetting subjects that hold none, so
// the maps hold only the callers with open streams.
func (s *streamCounts) close(c identity.Caller) {
	s.mu.Lock()
	defer s.mu.Unlock()
	decrement(s.byToken, c.TokenID)
	decrement(s.byTenant, c.Tenant)
}

func decrement(counts map[string]int, key string) {
	if counts[key]--; counts[key] <= 0 {
		delete(counts, key)
	}
}

// countStream counts the listen stream of x against its caller's limits,
// or refuses it. Its place is freed when the exchange is done: a defer in
// listen would enlarge the frame an idle stream keeps for as long as it is
// open (TestListenStreamStack).
func (x *exchange) countStream() error {
	if x.h.streams == nil {
		return nil
	}
	release, err := x.h.streams.open(x.caller)
	if err != nil {
		return err
	}
	x.streamDone = release
	return nil
}

// tooManyStreams is a listen request refused because its token or tenant
// holds as many open streams as it may.
type tooManyStreams struct {
	level  string // "token" or "tenant"
	tenant string
	max    int
}

func (e *tooManyStreams) Error() string {
	return fmt.Sprintf("too many listen streams: the %s's limit of %d is reached", e.level, e.max)
}

// streamLimitData is the data of the error: which limit, on what.
type streamLimitData struct {
	Limit string `json:"limit"` // "token" or "tenant"
	Key   string `json:"key"`   // "subscriptions/listen"
	Max   int    `json:"max"`   // the most open streams allowed
}

// streamsRefused is the 429 of a listen request over a stream limit: the
// shape of a rate limit's, without Retry-After, since only closing a
// stream frees a place and no wait is sure to.
func (x *exchange) streamsRefused(e *tooManyStreams) *failure {
	msg := fmt.Sprintf("too many listen streams: this token holds %d open subscriptions/listen streams on this server, the most it may; "+
		"close one (cancel its request) before opening another", e.max)
	if e.level == "tenant" {
		msg = fmt.Sprintf("too many listen streams: the tokens of tenant %s hold %d open subscriptions/listen streams on this server, "+
			"the most they may together; close one before opening another", e.tenant, e.max)
	}
	return &failure{
		id:    x.msg.ID,
		err:   &jsonrpc.Error{Code: jsonrpc.RateLimited, Message: msg, Data: streamLimitData{Limit: e.level, Key: "subscriptions/listen", Max: e.max}},
		cause: e,
	}
}

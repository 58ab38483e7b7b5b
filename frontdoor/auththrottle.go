package frontdoor

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// AuthThrottleConfig configures an AuthThrottle.
type AuthThrottleConfig struct {
	// Failures is how many requests without a valid token one client
	// address may make in Window before its requests are refused
	// unread; 0 turns the throttle off.
	Failures int
	// Window is the time Failures are counted over. Default 1 minute.
	Window time.Duration
	// TrustedProxies are the networks of the proxies in front of the
	// server (load balancers, TLS terminators). A request from one of
	// them is counted against the client its X-Forwarded-For or Forwarded
	// header names; any other request against its TCP peer, whatever its
	// headers say, since a client may write them.
	TrustedProxies []netip.Prefix
	// MaxAddresses caps the addresses remembered. Default
	// DefaultMaxBuckets.
	MaxAddresses int
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}

// Validate reports the first problem of c that NewAuthThrottle refuses.
func (c AuthThrottleConfig) Validate() error {
	switch {
	case c.Failures < 0:
		return fmt.Errorf("frontdoor: AuthThrottleConfig.Failures is %d; want 0 (off) or more", c.Failures)
	case c.Window < 0:
		return fmt.Errorf("frontdoor: AuthThrottleConfig.Window is %v; want a positive duration", c.Window)
	case c.MaxAddresses < 0:
		return fmt.Errorf("frontdoor: AuthThrottleConfig.MaxAddresses is %d", c.MaxAddresses)
	}
	return nil
}

// AuthThrottle slows down guessing tokens: it counts the requests each
// client address makes without a valid token (401s of the MCP endpoint
// and the admin API), and once an address has made Failures of them
// within Window, its further requests are refused with 429 before any
// token is checked, until the window frees a place. Each address has a
// token bucket of Failures that refills over Window: a client that
// mistyped its token retries at once, one that guesses gets Failures
// guesses a window. IPv6 addresses count by their /64, the least a host
// is given, so rotating addresses within it gains nothing.
//
// A nil *AuthThrottle throttles nothing. It is safe for concurrent use.
type AuthThrottle struct {
	set     bucketSet
	limit   RateLimit
	trusted []netip.Prefix
}

// NewAuthThrottle returns the throttle of c; nil when c.Failures is 0.
func NewAuthThrottle(c AuthThrottleConfig) (*AuthThrottle, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Failures == 0 {
		return nil, nil
	}
	if c.Window == 0 {
		c.Window = time.Minute
	}
	return &AuthThrottle{
		set:     newBucketSet(c.MaxAddresses, c.Now),
		limit:   RateLimit{PerSecond: float64(c.Failures) / c.Window.Seconds(), Burst: c.Failures},
		trusted: c.TrustedProxies,
	}, nil
}

// Refuses reports whether requests from addr are refused now, and until
// when at least: addr used up its failures.
func (t *AuthThrottle) Refuses(addr netip.Addr) (wait time.Duration, refused bool) {
	if t == nil {
		return 0, false
	}
	now := t.set.now()
	t.set.mu.Lock()
	defer t.set.mu.Unlock()
	b, ok := t.set.existing(addressKey(addr))
	if !ok {
		return 0, false
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return 0, false
	}
	return time.Duration((1 - tokens) / t.limit.PerSecond * float64(time.Second)), true
}

// Failed counts a request from addr that had no valid token.
func (t *AuthThrottle) Failed(addr netip.Addr) {
	if t == nil {
		return
	}
	now := t.set.now()
	t.set.mu.Lock()
	defer t.set.mu.Unlock()
	defer t.set.trim(now)
	t.set.bucket(addressKey(addr), t.limit).lim.AllowN(now, 1)
}

// Allowance says how many failures an address may make in which time,
// for the sentence of a refusal: "20 in 1 min".
func (t *AuthThrottle) Allowance() string {
	window := time.Duration(float64(t.limit.Burst) / t.limit.PerSecond * float64(time.Second)).Round(time.Millisecond)
	return fmt.Sprintf("%d in %s", t.limit.Burst, spoken(window))
}

// addressKey is what an address is counted by: itself, or for IPv6 its
// /64.
func addressKey(a netip.Addr) string {
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.Unmap().String()
}

// ClientAddr is the address r came from: its TCP peer, or, when the peer
// is a trusted proxy, the address the forwarding headers name, read from
// the right (the hop the proxy added) past any further trusted proxies.
// A client before the first proxy may write anything on the left, so the
// first address not of a trusted proxy is the client's. The zero Addr
// means the peer is unknown (a test's request, or a Unix socket).
func (t *AuthThrottle) ClientAddr(r *http.Request) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if t == nil || !t.isTrusted(peer) {
		return peer
	}
	chain := forwardedFor(r.Header)
	for i := len(chain) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(chain[i])
		if err != nil {
			return peer // a hop the proxy could not name: count the proxy's
		}
		if a = a.Unmap(); !t.isTrusted(a) || i == 0 {
			return a
		}
	}
	return peer
}

func (t *AuthThrottle) isTrusted(a netip.Addr) bool {
	for _, p := range t.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerAddr parses a RemoteAddr ("host:port").
func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(remote)
	return a.Unmap()
}

// forwardedFor lists the client addresses of the forwarding headers, the
// first hop first: the for= of RFC 7239 Forwarded if the request has one,
// else X-Forwarded-For. Ports and brackets are removed; what is left may
// still not be an address ("unknown", an obfuscated name).
func forwardedFor(h http.Header) []string {
	var out []string
	if fwd := h.Values("Forwarded"); len(fwd) > 0 {
		for _, elem := range strings.Split(strings.Join(fwd, ","), ",") {
			for _, pair := range strings.Split(elem, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if strings.EqualFold(k, "for") {
					out = append(out, hostOnly(strings.Trim(v, `"`)))
				}
			}
		}
		return out
	}
	for _, v := range strings.Split(strings.Join(h.Values("X-Forwarded-For"), ","), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, hostOnly(v))
		}
	}
	return out
}

// hostOnly drops the port and brackets of "[::1]:80", "1.2.3.4:80".
func hostOnly(s string) string {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().String()
	}
	return strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
}

// spoken says d as a person would: "1 min", "30 s".
func spoken(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

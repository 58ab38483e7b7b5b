package frontdoor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// newThrottledHandler is a test handler whose throttle allows 3 requests
// without a valid token a minute per address, on a clock the test moves.
func newThrottledHandler(t *testing.T, trusted ...string) (*Handler, *fakeClock) {
	t.Helper()
	clock := &fakeClock{t: testNow()}
	var prefixes []netip.Prefix
	for _, p := range trusted {
		prefixes = append(prefixes, netip.MustParsePrefix(p))
	}
	th, err := NewAuthThrottle(AuthThrottleConfig{Failures: 3, Window: time.Minute, TrustedProxies: prefixes, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, nil, nil)
	h.cfg.AuthThrottle = th
	return h, clock
}

// from is a tools/list request with token from peer, with headers.
func from(t *testing.T, peer, token string, headers ...string) *http.Request {
	req := newCall(t, 1, "tools/list", nil, nil)
	req.RemoteAddr = peer
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// wantThrottled checks the 429 of a throttled address: -31429 without id,
// Retry-After in whole seconds.
func wantThrottled(t *testing.T, rec *httptest.ResponseRecorder, wantRetry int) {
	t.Helper()
	var m struct {
		ID    json.RawMessage
		Error struct {
			Code int
			Data rateLimitData
		}
	}
	json.Unmarshal(rec.Body.Bytes(), &m)
	if rec.Code != http.StatusTooManyRequests || m.Error.Code != jsonrpc.RateLimited || m.Error.Data.Limit != "address" {
		t.Fatalf("request from a throttled address = %d %s, want 429 with code %d for the address", rec.Code, rec.Body, jsonrpc.RateLimited)
	}
	if got, _ := strconv.Atoi(rec.Header().Get("Retry-After")); got != wantRetry {
		t.Errorf("Retry-After = %q, want %d", rec.Header().Get("Retry-After"), wantRetry)
	}
}

// TestAuthThrottle: after 3 requests without a valid token, an address's
// requests are refused before their token is looked at, a valid one too;
// other addresses are not; the window frees one place at a time.
func TestAuthThrottle(t *testing.T) {
	h, clock := newThrottledHandler(t)
	const guesser, other = "192.0.2.1:40000", "192.0.2.2:40000"
	for i := range 3 {
		if rec := serve(h, from(t, guesser, "guess")); rec.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, rec.Code)
		}
	}
	wantThrottled(t, serve(h, from(t, guesser, tokenAll)), 20)
	if rec := serve(h, from(t, other, tokenAll)); rec.Code != http.StatusOK {
		t.Errorf("another address = %d %s, want 200", rec.Code, rec.Body)
	}
	// A forged X-Forwarded-For from a peer that is no trusted proxy
	// changes nothing.
	wantThrottled(t, serve(h, from(t, guesser, tokenAll, "X-Forwarded-For", "198.51.100.7")), 20)
	wantThrottled(t, serve(h, from(t, guesser, tokenAll, "Forwarded", "for=198.51.100.7")), 20)

	clock.advance(20 * time.Second) // a minute frees 3 places: one by now
	if rec := serve(h, from(t, guesser, tokenAll)); rec.Code != http.StatusOK {
		t.Fatalf("after 20 s = %d %s, want 200", rec.Code, rec.Body)
	}
	if rec := serve(h, from(t, guesser, "guess")); rec.Code != http.StatusUnauthorized {
		t.Fatalf("a guess after 20 s = %d, want 401", rec.Code)
	}
	wantThrottled(t, serve(h, from(t, guesser, tokenAll)), 20)
}

// TestAuthThrottleBehindProxy: requests from a trusted proxy count
// against the client it names, read from the right; what a client wrote
// on the left changes nothing.
func TestAuthThrottleBehindProxy(t *testing.T) {
	h, _ := newThrottledHandler(t, "10.0.0.0/8")
	const proxy = "10.1.2.3:50000"
	for i := range 3 {
		rec := serve(h, from(t, proxy, "guess", "X-Forwarded-For", "203.0.113.50, 198.51.100.7, 10.9.9.9"))
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, rec.Code)
		}
	}
	wantThrottled(t, serve(h, from(t, proxy, tokenAll, "X-Forwarded-For", "1.2.3.4, 198.51.100.7")), 20)
	wantThrottled(t, serve(h, from(t, proxy, tokenAll, "Forwarded", `for="198.51.100.7:4711";proto=https`)), 20)
	if rec := serve(h, from(t, proxy, tokenAll, "X-Forwarded-For", "198.51.100.8")); rec.Code != http.StatusOK {
		t.Errorf("another client behind the proxy = %d, want 200", rec.Code)
	}
	if rec := serve(h, from(t, proxy, tokenAll)); rec.Code != http.StatusOK {
		t.Errorf("the proxy itself = %d, want 200: its clients were counted, not it", rec.Code)
	}
}

func TestClientAddr(t *testing.T) {
	th, err := NewAuthThrottle(AuthThrottleConfig{Failures: 1, TrustedProxies: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		peer, header, value, want string
	}{
		{"192.0.2.1:1", "", "", "192.0.2.1"},
		{"192.0.2.1:1", "X-Forwarded-For", "198.51.100.7", "192.0.2.1"}, // untrusted peer: headers ignored
		{"10.0.0.1:1", "", "", "10.0.0.1"},
		{"10.0.0.1:1", "X-Forwarded-For", "198.51.100.7", "198.51.100.7"},
		{"10.0.0.1:1", "X-Forwarded-For", "198.51.100.7, 10.0.0.2", "198.51.100.7"}, // past a second proxy
		{"10.0.0.1:1", "X-Forwarded-For", "10.0.0.3, 10.0.0.2", "10.0.0.3"},         // all proxies: the first
		{"10.0.0.1:1", "X-Forwarded-For", "198.51.100.7, unknown", "10.0.0.1"},      // a hop it could not name
		{"10.0.0.1:1", "Forwarded", `for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"`, "2001:db8::17"},
		{"[fd00::1]:1", "X-Forwarded-For", "[2001:db8::9]:80", "2001:db8::9"},
		{"[::ffff:10.0.0.1]:1", "X-Forwarded-For", "::ffff:198.51.100.7", "198.51.100.7"},
	} {
		req := httptest.NewRequest(http.MethodPost, testEndpoint, nil)
		req.RemoteAddr = tt.peer
		if tt.header != "" {
			req.Header.Set(tt.header, tt.value)
		}
		if got := th.ClientAddr(req); got.String() != tt.want {
			t.Errorf("ClientAddr(peer %s, %s: %s) = %s, want %s", tt.peer, tt.header, tt.value, got, tt.want)
		}
	}
}

// TestAuthThrottleIPv6: IPv6 addresses count by their /64.
func TestAuthThrottleIPv6(t *testing.T) {
	th, _ := NewAuthThrottle(AuthThrottleConfig{Failures: 1})
	th.Failed(netip.MustParseAddr("2001:db8:1:2::1"))
	if _, refused := th.Refuses(netip.MustParseAddr("2001:db8:1:2:ffff::9")); !refused {
		t.Error("another address of the same /64 is not refused")
	}
	if _, refused := th.Refuses(netip.MustParseAddr("2001:db8:1:3::1")); refused {
		t.Error("an address of another /64 is refused")
	}
}

// TestAuthThrottleOff: no failures configured, no throttle.
func TestAuthThrottleOff(t *testing.T) {
	th, err := NewAuthThrottle(AuthThrottleConfig{})
	if err != nil || th != nil {
		t.Fatalf("NewAuthThrottle(off) = %v, %v; want nil, nil", th, err)
	}
	th.Failed(netip.MustParseAddr("192.0.2.1"))
	if _, refused := th.Refuses(netip.MustParseAddr("192.0.2.1")); refused {
		t.Error("a nil throttle refuses")
	}
}

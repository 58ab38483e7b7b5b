package main

import (
	"net/netip"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
)

// TestLimitFlags: the limits are on by default, and nonsense is refused
// naming the flag.
func TestLimitFlags(t *testing.T) {
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.listenLimits(); got != (frontdoor.StreamLimits{PerToken: 10, PerTenant: 200}) {
		t.Errorf("default listen limits = %+v, want 10 a token, 200 a tenant", got)
	}
	if got := c.adminRateLimits(); got.Token != (frontdoor.RateLimit{PerSecond: 5, Burst: 20}) || got.Tenant != (frontdoor.RateLimit{PerSecond: 20, Burst: 50}) {
		t.Errorf("default admin limits = %+v, want 5/s burst 20 a credential, 20/s burst 50 a tenant", got)
	}
	if got := c.authThrottle(); got.Failures != 20 || got.Window != time.Minute || len(got.TrustedProxies) != 0 {
		t.Errorf("default throttle = %+v, want 20 a minute, no trusted proxy", got)
	}

	c, err = parseServe("--trusted-proxies", "10.0.0.0/8, 192.0.2.7,fd00::/8", "--auth-failures", "30", "--rate-replicas", "4")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("fd00::/8")}
	if got := c.authThrottle(); got.Failures != 8 || len(got.TrustedProxies) != 3 || got.TrustedProxies[1] != want[1] || got.TrustedProxies[2] != want[2] {
		t.Errorf("throttle = %+v, want 8 failures (30 over 4 replicas) and proxies %v", got, want)
	}

	wantFlagRefused(t,
		[]string{"--listen-per-token", "-1"},
		[]string{"--listen-per-tenant", "-1"},
		[]string{"--admin-rate-credential", "-1"},
		[]string{"--admin-rate-tenant-burst", "0"},
		[]string{"--auth-failures", "-3"},
		[]string{"--auth-failure-window", "0s"},
		[]string{"--trusted-proxies", "10.0.0.0/33"},
		[]string{"--trusted-proxies", "proxy.internal"},
	)
}

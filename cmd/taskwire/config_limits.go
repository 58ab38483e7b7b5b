package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/internal/quota"
)

// limitsConfig is what a front door bounds beyond the MCP rate limits:
// open listen streams, the admin API's calls, and requests without a
// valid token. The zero value bounds nothing.
type limitsConfig struct {
	ListenPerToken, ListenPerTenant int

	AdminCredential, AdminTenant           float64 // admin calls a second
	AdminCredentialBurst, AdminTenantBurst int

	AuthFailures   int           // requests without a valid token per address…
	AuthWindow     time.Duration // …in this window
	TrustedProxies string        // comma-separated CIDRs or addresses
}

// limitFlags declares the flags of limitsConfig (serve, frontdoor), on
// by default.
func (c *config) limitFlags(fs *flag.FlagSet) {
	l := &c.Limits
	fs.IntVar(&l.ListenPerToken, "listen-per-token", c.envInt("TASKWIRE_LISTEN_PER_TOKEN", 10), "subscriptions/listen streams one token may hold open on this front door; 0: no limit (env TASKWIRE_LISTEN_PER_TOKEN)")
	fs.IntVar(&l.ListenPerTenant, "listen-per-tenant", c.envInt("TASKWIRE_LISTEN_PER_TENANT", 200), "subscriptions/listen streams all tokens of a tenant may hold open on this front door; 0: no limit (env TASKWIRE_LISTEN_PER_TENANT)")
	fs.Float64Var(&l.AdminCredential, "admin-rate-credential", c.envFloat("TASKWIRE_ADMIN_RATE_CREDENTIAL", 5), "admin API calls a second each credential (token, operator secret) may make; 0: no limit (env TASKWIRE_ADMIN_RATE_CREDENTIAL)")
	fs.IntVar(&l.AdminCredentialBurst, "admin-rate-credential-burst", c.envInt("TASKWIRE_ADMIN_RATE_CREDENTIAL_BURST", 20), "admin API calls a credential may make at once (env TASKWIRE_ADMIN_RATE_CREDENTIAL_BURST)")
	fs.Float64Var(&l.AdminTenant, "admin-rate-tenant", c.envFloat("TASKWIRE_ADMIN_RATE_TENANT", 20), "admin API calls a second that may name one tenant, whoever makes them; 0: no limit (env TASKWIRE_ADMIN_RATE_TENANT)")
	fs.IntVar(&l.AdminTenantBurst, "admin-rate-tenant-burst", c.envInt("TASKWIRE_ADMIN_RATE_TENANT_BURST", 50), "admin API calls that may name one tenant at once (env TASKWIRE_ADMIN_RATE_TENANT_BURST)")
	fs.IntVar(&l.AuthFailures, "auth-failures", c.envInt("TASKWIRE_AUTH_FAILURES", 20), "requests without a valid token one client address may make per --auth-failure-window before its requests get 429 unread; 0: no limit (env TASKWIRE_AUTH_FAILURES)")
	fs.DurationVar(&l.AuthWindow, "auth-failure-window", c.envDuration("TASKWIRE_AUTH_FAILURE_WINDOW", time.Minute), "the window --auth-failures counts over (env TASKWIRE_AUTH_FAILURE_WINDOW)")
	fs.StringVar(&l.TrustedProxies, "trusted-proxies", env("TASKWIRE_TRUSTED_PROXIES", ""), "comma-separated networks (CIDR) or addresses of the proxies in front of the server, whose X-Forwarded-For or Forwarded header names the client; from anyone else those headers are ignored (env TASKWIRE_TRUSTED_PROXIES)")
}

// checkLimits refuses limit flags that make no sense, naming the flag.
func (c *config) checkLimits() error {
	l := c.Limits
	switch {
	case l.ListenPerToken < 0:
		return fmt.Errorf("--listen-per-token %d: want 0 (no limit) or more streams", l.ListenPerToken)
	case l.ListenPerTenant < 0:
		return fmt.Errorf("--listen-per-tenant %d: want 0 (no limit) or more streams", l.ListenPerTenant)
	case !(l.AdminCredential >= 0):
		return fmt.Errorf("--admin-rate-credential %v: want calls a second, 0 or more", l.AdminCredential)
	case !(l.AdminTenant >= 0):
		return fmt.Errorf("--admin-rate-tenant %v: want calls a second, 0 or more", l.AdminTenant)
	case l.AdminCredential > 0 && l.AdminCredentialBurst < 1:
		return fmt.Errorf("--admin-rate-credential-burst %d: want at least 1 call while --admin-rate-credential is set", l.AdminCredentialBurst)
	case l.AdminTenant > 0 && l.AdminTenantBurst < 1:
		return fmt.Errorf("--admin-rate-tenant-burst %d: want at least 1 call while --admin-rate-tenant is set", l.AdminTenantBurst)
	case l.AuthFailures < 0:
		return fmt.Errorf("--auth-failures %d: want 0 (no limit) or more requests", l.AuthFailures)
	case l.AuthFailures > 0 && l.AuthWindow <= 0:
		return fmt.Errorf("--auth-failure-window %v: want a positive duration while --auth-failures is set", l.AuthWindow)
	}
	if _, err := parseProxies(l.TrustedProxies); err != nil {
		return err
	}
	return c.adminRateLimits().Validate()
}

// parseProxies reads --trusted-proxies: CIDRs, or addresses meaning
// themselves alone.
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range commaList(s) {
		p, err := netip.ParsePrefix(v)
		if err != nil && !strings.Contains(v, "/") {
			var a netip.Addr
			if a, err = netip.ParseAddr(v); err == nil {
				p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
			}
		}
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is neither a network (10.0.0.0/8) nor an address: %w", v, errors.Unwrap(err))
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// listenLimits is the front door's view of the listen flags.
func (c *config) listenLimits() frontdoor.StreamLimits {
	return frontdoor.StreamLimits{PerToken: c.Limits.ListenPerToken, PerTenant: c.Limits.ListenPerTenant}
}

// adminRateLimits are the admin API's rate limits, shared among the front
// doors as the MCP rate limits are (--rate-replicas).
func (c *config) adminRateLimits() frontdoor.RateLimits {
	l := c.Limits
	return frontdoor.RateLimits{
		Token:    frontdoor.RateLimit{PerSecond: l.AdminCredential, Burst: l.AdminCredentialBurst},
		Tenant:   frontdoor.RateLimit{PerSecond: l.AdminTenant, Burst: l.AdminTenantBurst},
		Replicas: c.Rate.Replicas,
	}
}

// authThrottle is the throttle of requests without a valid token. Each
// of --rate-replicas front doors allows its share of the failures
// (rounded up), so a client spreading its guesses over them gains
// nothing.
func (c *config) authThrottle() frontdoor.AuthThrottleConfig {
	l := c.Limits
	proxies, _ := parseProxies(l.TrustedProxies) // checked by checkLimits
	failures := l.AuthFailures
	if n := c.Rate.Replicas; n > 1 && failures > 0 {
		failures = (failures + n - 1) / n
	}
	return frontdoor.AuthThrottleConfig{Failures: failures, Window: l.AuthWindow, TrustedProxies: proxies}
}

// quotaFlags declares the quotas of every tenant (serve, worker: the
// worker enforces them, as it holds the database).
func (c *config) quotaFlags(fs *flag.FlagSet) {
	q, d := &c.Quota, quota.Defaults
	fs.IntVar(&q.Tasks, "quota-tasks", c.envInt("TASKWIRE_QUOTA_TASKS", d.Tasks), "tasks a tenant may hold, deleted ones aside; 0: no quota (env TASKWIRE_QUOTA_TASKS)")
	fs.IntVar(&q.Members, "quota-members", c.envInt("TASKWIRE_QUOTA_MEMBERS", d.Members), "current members (people and assistants) a tenant may have; 0: no quota (env TASKWIRE_QUOTA_MEMBERS)")
	fs.IntVar(&q.TokensPerMember, "quota-tokens-per-member", c.envInt("TASKWIRE_QUOTA_TOKENS_PER_MEMBER", d.TokensPerMember), "live tokens one member may hold; 0: no quota (env TASKWIRE_QUOTA_TOKENS_PER_MEMBER)")
	fs.IntVar(&q.Boards, "quota-boards", c.envInt("TASKWIRE_QUOTA_BOARDS", d.Boards), "boards a tenant may hold, archived ones included; 0: no quota (env TASKWIRE_QUOTA_BOARDS)")
}

// checkQuota refuses a negative quota, naming its flag.
func (c *config) checkQuota() error {
	for _, q := range []struct {
		flag  string
		value int
	}{{"--quota-tasks", c.Quota.Tasks}, {"--quota-members", c.Quota.Members}, {"--quota-tokens-per-member", c.Quota.TokensPerMember}, {"--quota-boards", c.Quota.Boards}} {
		if q.value < 0 {
			return fmt.Errorf("%s %d: want 0 (no quota) or more", q.flag, q.value)
		}
	}
	return nil
}

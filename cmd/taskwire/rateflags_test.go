package main

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor"
)

// parseServe is the configuration of `taskwire serve args`, resolved.
func parseServe(args ...string) (*config, error) {
	var c config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.serveFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return &c, c.resolve("127.0.0.1:8080")
}

// wantFlagRefused checks that serve refuses each of cases with an error
// naming its first argument, the flag.
func wantFlagRefused(t *testing.T, cases ...[]string) {
	t.Helper()
	for _, args := range cases {
		if _, err := parseServe(args...); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("serve %v: error %v, want one naming %s", args, err, args[0])
		}
	}
}

// TestRateFlags: the limits are on by default, the environment sets them,
// a flag wins, and nonsense is refused naming the flag.
func TestRateFlags(t *testing.T) {
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	want := frontdoor.RateLimits{Token: frontdoor.RateLimit{PerSecond: 10, Burst: 20}, Tenant: frontdoor.RateLimit{PerSecond: 50, Burst: 100}, Replicas: 1}
	if got := c.rateLimits(); got.Token != want.Token || got.Tenant != want.Tenant || got.Replicas != want.Replicas {
		t.Errorf("default limits = %+v, want %+v", got, want)
	}

	t.Setenv("TASKWIRE_RATE_TOKEN", "0")
	t.Setenv("TASKWIRE_RATE_REPLICAS", "3")
	if c, err = parseServe("--rate-replicas", "4"); err != nil {
		t.Fatal(err)
	}
	if got := c.rateLimits(); got.Token.PerSecond != 0 || got.Replicas != 4 {
		t.Errorf("limits = %+v, want the token limit off (env) and 4 replicas (flag over env)", got)
	}

	wantFlagRefused(t,
		[]string{"--rate-tenant-burst", "0"},
		[]string{"--rate-token", "-1"},
		[]string{"--rate-replicas", "-2"},
	)
	t.Setenv("TASKWIRE_RATE_TENANT", "ten")
	if _, err := parseServe(); err == nil || !strings.Contains(err.Error(), "TASKWIRE_RATE_TENANT") {
		t.Errorf("TASKWIRE_RATE_TENANT=ten: error %v, want one naming it", err)
	}
}

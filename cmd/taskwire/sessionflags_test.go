package main

import (
	"flag"
	"testing"
	"time"

	"github.com/taskwire/taskwire/node"
)

// TestSessionFlags: console sign-ins last 7 days, 12 hours idle, by
// default on serve and worker; the environment sets them, a flag wins,
// and a duration that is not positive is refused naming its flag.
func TestSessionFlags(t *testing.T) {
	var worker nodeConfig
	worker.workerFlags(flag.NewFlagSet("worker", flag.ContinueOnError))
	c, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	want := node.SessionLimits{Lifetime: 7 * 24 * time.Hour, IdleTimeout: 12 * time.Hour}
	if c.Sessions != want || worker.Sessions != want {
		t.Errorf("default session limits: serve %+v, worker %+v; want %+v", c.Sessions, worker.Sessions, want)
	}
	if got := c.system(nil, nil).Sessions; got != want {
		t.Errorf("serve's system gets session limits %+v, want %+v", got, want)
	}
	if got := worker.workerProcess().Sessions; got != want {
		t.Errorf("the worker process gets session limits %+v, want %+v", got, want)
	}

	t.Setenv("TASKWIRE_SESSION_LIFETIME", "24h")
	t.Setenv("TASKWIRE_SESSION_IDLE_TIMEOUT", "1h")
	if c, err = parseServe("--session-idle-timeout", "30m"); err != nil {
		t.Fatal(err)
	}
	if want := (node.SessionLimits{Lifetime: 24 * time.Hour, IdleTimeout: 30 * time.Minute}); c.Sessions != want {
		t.Errorf("session limits = %+v, want %+v (lifetime from env, idle timeout from the flag)", c.Sessions, want)
	}
	wantFlagRefused(t,
		[]string{"--session-lifetime", "0s"},
		[]string{"--session-idle-timeout", "-1h"},
	)
}

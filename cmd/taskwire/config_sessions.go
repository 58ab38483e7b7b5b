package main

import (
	"flag"
	"fmt"

	"github.com/taskwire/taskwire/services/sessions"
)

// sessionFlags declares how long the console's sessions live (serve,
// worker: the worker keeps the sessions, as it holds the database).
func (c *config) sessionFlags(fs *flag.FlagSet) {
	s := &c.Sessions
	c.sessionsDeclared = true
	fs.DurationVar(&s.Lifetime, "session-lifetime", c.envDuration("TASKWIRE_SESSION_LIFETIME", sessions.DefaultLifetime),
		"how long a console sign-in lasts however active, e.g. 168h; then the person signs in again (env TASKWIRE_SESSION_LIFETIME)")
	fs.DurationVar(&s.IdleTimeout, "session-idle-timeout", c.envDuration("TASKWIRE_SESSION_IDLE_TIMEOUT", sessions.DefaultIdleTimeout),
		"a console sign-in unused this long ends, e.g. 12h (env TASKWIRE_SESSION_IDLE_TIMEOUT)")
}

// checkSessions refuses session bounds that are not positive, for the
// commands that declare them.
func (c *config) checkSessions() error {
	if !c.sessionsDeclared {
		return nil
	}
	switch s := c.Sessions; {
	case s.Lifetime <= 0:
		return fmt.Errorf("--session-lifetime %v: want a positive duration, e.g. 168h (7 days)", s.Lifetime)
	case s.IdleTimeout <= 0:
		return fmt.Errorf("--session-idle-timeout %v: want a positive duration, e.g. 12h", s.IdleTimeout)
	}
	return nil
}

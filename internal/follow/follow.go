// Package follow keeps an in-memory copy current with its source: it
// loads again whenever asked (a nudge heard over NATS, a reconnect after
// which nudges may have been lost), one load at a time, and retries a
// failed load with a growing wait until one succeeds. The signing keys
// (services/keys) and the revocations set (services/tokens) follow their
// sources this way.
package follow

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// loadTimeout bounds one load; maxBackoff bounds the wait between failed
// ones.
const (
	loadTimeout = 30 * time.Second
	maxBackoff  = 30 * time.Second
)

// Config says what a Loop loads and how it reports.
type Config struct {
	Load   func(context.Context) error // required
	Logger *slog.Logger                // required
	// Failed and Loaded are the log messages of a failed load (a warning,
	// with the error) and of a successful one (debug).
	Failed, Loaded string
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Load == nil:
		return errors.New("follow: Config.Load is required")
	case c.Logger == nil:
		return errors.New("follow: Config.Logger is required")
	}
	return nil
}

// Loop loads when asked, retrying until a load succeeds. Ask never
// blocks, so it can be called from a NATS callback.
type Loop struct {
	cfg    Config
	reload chan struct{} // a load was asked for (buffered, one)
	done   chan struct{}
	once   sync.Once
}

// New returns a Loop that does nothing until Start; asks made before
// Start are served once it runs.
func New(cfg Config) (*Loop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Loop{cfg: cfg, reload: make(chan struct{}, 1), done: make(chan struct{})}, nil
}

// Start runs the loop until Stop.
func (l *Loop) Start() { go l.run() }

// Stop ends the loop and cancels a load under way; it may be called
// more than once.
func (l *Loop) Stop() { l.once.Do(func() { close(l.done) }) }

// Ask asks for a load in the background.
func (l *Loop) Ask() {
	select {
	case l.reload <- struct{}{}:
	default: // a load is pending already
	}
}

func (l *Loop) run() {
	for {
		select {
		case <-l.done:
			return
		case <-l.reload:
		}
		for wait := time.Second; !l.loadOnce(); wait = min(2*wait, maxBackoff) {
			select {
			case <-l.done:
				return
			case <-time.After(wait):
			}
		}
	}
}

// loadOnce loads once, cancelled when the loop stops, and logs a failure.
func (l *Loop) loadOnce() bool {
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	go func() {
		select {
		case <-l.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := l.cfg.Load(ctx); err != nil {
		l.cfg.Logger.Warn(l.cfg.Failed, "err", err)
		return false
	}
	l.cfg.Logger.Debug(l.cfg.Loaded)
	return true
}

// OnReconnect chains f onto nc's reconnect handler: messages sent while
// the connection was away are lost, so what follows them loads again.
// Set your own handler before, or it replaces this one.
func OnReconnect(nc *nats.Conn, f func()) {
	prev := nc.ReconnectHandler()
	nc.SetReconnectHandler(func(c *nats.Conn) {
		if prev != nil {
			prev(c)
		}
		f()
	})
}

package keys

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/events"
)

// reloadTimeout bounds one reload; reloadBackoff bounds the wait between
// failed ones.
const (
	reloadTimeout = 30 * time.Second
	reloadBackoff = 30 * time.Second
)

// follow calls load whenever the keys change (a nudge on
// events.KeysSubject) and whenever nc reconnects (nudges sent while it was
// away are lost), retrying a failed load until it succeeds. It chains onto
// nc's reconnect handler. stop ends it.
func follow(nc *nats.Conn, load func(context.Context) error, log *slog.Logger) (stop func(), err error) {
	reload := make(chan struct{}, 1)
	ask := func() {
		select {
		case reload <- struct{}{}:
		default: // a reload is pending already
		}
	}
	bus, err := events.New(nc)
	if err != nil {
		return nil, err
	}
	unsubscribe, err := bus.SubscribeKeysChanged(ask)
	if err != nil {
		return nil, err
	}
	prev := nc.ReconnectHandler()
	nc.SetReconnectHandler(func(c *nats.Conn) {
		if prev != nil {
			prev(c)
		}
		ask()
	})
	done := make(chan struct{})
	go reloadLoop(done, reload, load, log)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			unsubscribe()
		})
	}, nil
}

// reloadLoop loads when asked, retrying until a load succeeds.
func reloadLoop(done <-chan struct{}, reload <-chan struct{}, load func(context.Context) error, log *slog.Logger) {
	for {
		select {
		case <-done:
			return
		case <-reload:
		}
		for wait := time.Second; !reloadOnce(done, load, log); wait = min(2*wait, reloadBackoff) {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
		}
	}
}

// reloadOnce loads once, cancelled when done closes, and logs a failure.
func reloadOnce(done <-chan struct{}, load func(context.Context) error, log *slog.Logger) bool {
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := load(ctx); err != nil {
		log.Warn("keys: reloading the signing keys failed; retrying", "err", err)
		return false
	}
	log.Debug("keys: signing keys reloaded")
	return true
}

// Follow reloads r from the database whenever the keys change or nc
// reconnects; a nil nc follows nothing. stop ends it.
func (r *Ring) Follow(nc *nats.Conn) (stop func(), err error) {
	if nc == nil {
		return func() {}, nil
	}
	return follow(nc, r.Load, r.log)
}

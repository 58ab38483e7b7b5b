package keys

import (
	"context"
	"log/slog"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/follow"
)

// followKeys calls load whenever the keys change (a nudge on
// events.KeysSubject) and whenever nc reconnects (nudges sent while it was
// away are lost), retrying a failed load until it succeeds (follow.Loop).
// It chains onto nc's reconnect handler. stop ends it.
func followKeys(nc *nats.Conn, load func(context.Context) error, log *slog.Logger) (stop func(), err error) {
	loop, err := follow.New(follow.Config{
		Load: load, Logger: log,
		Failed: "keys: reloading the signing keys failed; retrying",
		Loaded: "keys: signing keys reloaded",
	})
	if err != nil {
		return nil, err
	}
	bus, err := events.New(nc)
	if err != nil {
		return nil, err
	}
	unsubscribe, err := bus.SubscribeKeysChanged(loop.Ask)
	if err != nil {
		return nil, err
	}
	follow.OnReconnect(nc, loop.Ask)
	loop.Start()
	var once sync.Once
	return func() {
		once.Do(func() {
			loop.Stop()
			unsubscribe()
		})
	}, nil
}

// Follow reloads r from the database whenever the keys change or nc
// reconnects; a nil nc follows nothing. stop ends it.
func (r *Ring) Follow(nc *nats.Conn) (stop func(), err error) {
	if nc == nil {
		return func() {}, nil
	}
	return followKeys(nc, r.Load, r.log)
}

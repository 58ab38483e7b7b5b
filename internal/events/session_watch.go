package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// rewatchEvery is how often a subscriber whose watcher ended by itself
// tries to watch the bucket again.
const rewatchEvery = time.Second

// watchNews calls fn with each entry of kv, then with each new one, until
// the returned stop is called. It returns once fn has had every entry the
// bucket held, so a front door knows of earlier news before it serves.
func (b *Bus) watchNews(kv jetstream.KeyValue, fn func(SessionNews)) (stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := watchAll(ctx, kv)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("events: watching session news: %w", err)
	}
	loaded, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		b.follow(ctx, kv, w, fn, loaded)
	}()
	stop = func() { cancel(); <-done }
	select {
	case <-loaded:
		return stop, nil
	case <-done: // the watcher ended, and watching again is not possible
		cancel()
		return nil, fmt.Errorf("events: watching session news in bucket %s ended before it began", b.news.name)
	case <-time.After(jsTimeout):
		stop()
		return nil, fmt.Errorf("events: the session news in bucket %s did not arrive within %v", b.news.name, jsTimeout)
	}
}

// follow gives fn the news w delivers until ctx ends, closing loaded once
// the entries the bucket held have been delivered. A watcher that ends by
// itself lost its consumer (the connection closed, or the bucket went
// with a memory-only server that restarted): follow then watches anew
// from the first entry, and fn takes news it had again as it took it.
func (b *Bus) follow(ctx context.Context, kv jetstream.KeyValue, w jetstream.KeyWatcher, fn func(SessionNews), loaded chan struct{}) {
	for w != nil {
		select {
		case <-ctx.Done():
			stopWatch(w)
			return
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				kv, w = b.rewatch(ctx, kv)
			case e == nil: // the entries held when watching began are in
				if loaded != nil {
					close(loaded)
					loaded = nil
				}
			case e.Operation() == jetstream.KeyValuePut:
				var n SessionNews
				if json.Unmarshal(e.Value(), &n) == nil && b.news.valid(n) {
					fn(n)
				}
			}
		}
	}
}

// rewatch watches the bucket again in place of lost, trying every
// rewatchEvery until ctx ends or the connection closes (nil then, as
// when the server turns out to have no JetStream any more).
func (b *Bus) rewatch(ctx context.Context, lost jetstream.KeyValue) (jetstream.KeyValue, jetstream.KeyWatcher) {
	for !b.nc.IsClosed() && !b.nc.IsDraining() {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(rewatchEvery):
		}
		b.news.forget(lost)
		kv, err := b.news.bucket(b.nc)
		if err == nil && kv == nil {
			return nil, nil
		}
		if err == nil {
			if w, err := watchAll(ctx, kv); err == nil {
				return kv, w
			}
			lost = kv
		}
	}
	return nil, nil
}

// watchAll watches every key of kv until ctx ends. Making the watcher
// takes at most jsTimeout.
func watchAll(ctx context.Context, kv jetstream.KeyValue) (jetstream.KeyWatcher, error) {
	// The watcher lives as long as the context it is made with, so the
	// bound is a timer that cancels it rather than a deadline.
	ctx, cancel := context.WithCancel(ctx)
	slow := time.AfterFunc(jsTimeout, cancel)
	w, err := kv.WatchAll(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	if !slow.Stop() {
		stopWatch(w)
		return nil, fmt.Errorf("watching the bucket took over %v", jsTimeout)
	}
	return w, nil
}

// stopWatch stops w and drains what it still delivers, so that its NATS
// callback, which may be waiting on a full channel, can finish.
func stopWatch(w jetstream.KeyWatcher) {
	w.Stop()
	for range w.Updates() {
	}
}

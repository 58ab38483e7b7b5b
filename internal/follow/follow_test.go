package follow_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/follow"
	"github.com/taskwire/taskwire/internal/poll"
)

func newLoop(t *testing.T, load func(context.Context) error) *follow.Loop {
	t.Helper()
	l, err := follow.New(follow.Config{Load: load, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Failed: "failed", Loaded: "loaded"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Stop)
	return l
}

// TestAskBeforeStart: an ask made before Start is served once the loop
// runs, and asks made while one is pending make one load.
func TestAskBeforeStart(t *testing.T) {
	var loads atomic.Int32
	l := newLoop(t, func(context.Context) error { loads.Add(1); return nil })
	l.Ask()
	l.Ask()
	if n := loads.Load(); n != 0 {
		t.Fatalf("loads before Start = %d, want 0", n)
	}
	l.Start()
	poll.Until(t, 5*time.Second, "the asked load", func() bool { return loads.Load() == 1 })
}

// TestRetriesUntilLoaded: a failed load is retried until one succeeds.
func TestRetriesUntilLoaded(t *testing.T) {
	var loads atomic.Int32
	l := newLoop(t, func(context.Context) error {
		if loads.Add(1) < 2 {
			return errors.New("down")
		}
		return nil
	})
	l.Start()
	l.Ask()
	poll.Until(t, 10*time.Second, "a failed load to be retried", func() bool { return loads.Load() == 2 })
}

// TestStopCancelsLoad: Stop cancels a load under way.
func TestStopCancelsLoad(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	l := newLoop(t, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return ctx.Err()
	})
	l.Start()
	l.Ask()
	<-started
	l.Stop()
	l.Stop() // a second Stop is harmless
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not cancel the load under way")
	}
}

func TestConfigValidate(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for name, cfg := range map[string]follow.Config{
		"no load":   {Logger: log},
		"no logger": {Load: func(context.Context) error { return nil }},
	} {
		if _, err := follow.New(cfg); err == nil {
			t.Errorf("New(%s) = nil error, want one", name)
		}
	}
}

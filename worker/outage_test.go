package worker

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/poll"
)

// fakeDatabase answers pings while up is true and counts them.
type fakeDatabase struct {
	up        atomic.Bool
	pings     atomic.Int64
	discarded atomic.Int64
}

func (f *fakeDatabase) Ping(context.Context) error {
	f.pings.Add(1)
	if f.up.Load() {
		return nil
	}
	return fmt.Errorf("failed to connect: %w", driver.ErrBadConn)
}

func (f *fakeDatabase) DiscardIdle() { f.discarded.Add(1) }

// TestBreaker takes a worker through an outage: the first call failing to
// reach the database is Unavailable and opens the breaker (health
// NOT_SERVING, one warning); calls meanwhile are refused without reaching
// the handler; pings drop the idle pool first, and once one is answered
// health is SERVING again, one record says how long it lasted, and calls
// pass.
func TestBreaker(t *testing.T) {
	db := &fakeDatabase{}
	db.up.Store(true)
	w := startWorker(t, func(c *Config) { c.Database = db })
	unreachable := domainerr.Wrap(domainerr.Internal, fmt.Errorf("store: commit: %w", driver.ErrBadConn), "internal error")
	w.board.errs["down"] = unreachable

	if got := healthOf(t, w.srv); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health before the outage = %v, want SERVING", got)
	}
	db.up.Store(false)
	_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "down"})
	if code := status.Code(err); code != codes.Unavailable {
		t.Fatalf("a call failing to reach the database: code %v (%v), want Unavailable", code, err)
	}
	if got := healthOf(t, w.srv); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health during the outage = %v, want NOT_SERVING", got)
	}
	if o := w.srv.Outages(); o.Reachable || o.Outages != 1 {
		t.Errorf("Outages() during the outage = %+v, want unreachable, 1 outage", o)
	}
	delete(w.board.errs, "down")
	for range 20 {
		_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if code := status.Code(err); code != codes.Unavailable {
			t.Fatalf("a call during the outage: code %v, want Unavailable", code)
		}
	}
	if got := w.srv.Outages().Refused; got != 20 {
		t.Errorf("calls refused = %d, want 20", got)
	}
	if n := len(w.logs.find("rpc", map[string]string{"method": taskwirev1.BoardService_GetTask_FullMethodName, "code": "OK"})); n != 0 {
		t.Errorf("%d calls reached the handler during the outage, want 0", n)
	}
	if pings := db.pings.Load(); pings == 0 {
		poll.Until(t, 5*time.Second, "the breaker to ping the database", func() bool { return db.pings.Load() > 0 })
	}

	db.up.Store(true)
	back := time.Now()
	poll.Until(t, 5*time.Second, "health to be SERVING again", func() bool { return healthOf(t, w.srv) == healthpb.HealthCheckResponse_SERVING })
	t.Logf("SERVING %v after the database answered", time.Since(back))
	if db.discarded.Load() == 0 {
		t.Errorf("idle pool never dropped during the outage: the ping that ends it must use a new connection")
	}
	if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("a call after the outage: %v", err)
	}
	warns := w.logs.find("worker: the database is unreachable; calls are answered as unavailable until it answers again", nil)
	infos := w.logs.find("worker: the database answers again; calls are served", nil)
	if len(warns) != 1 || len(infos) != 1 || warns[0].Level != slog.LevelWarn {
		t.Errorf("outage logged %d warnings and %d ends, want 1 and 1", len(warns), len(infos))
	}
	if len(infos) == 1 && infos[0].Attrs["outage"] == "" {
		t.Errorf("the end of the outage does not say how long it lasted: %v", infos[0].Attrs)
	}
	if n := len(w.logs.find("internal error", nil)); n != 0 {
		t.Errorf("%d internal errors logged, want none", n)
	}
}

// TestBreakerPingOpens: a ping the database leaves unanswered opens the
// breaker with no call failing.
func TestBreakerPingOpens(t *testing.T) {
	db := &fakeDatabase{}
	b := newBreaker(db, slog.New(slog.DiscardHandler), func(bool) {})
	defer b.shut()
	b.check()
	if o := b.stats(); o.Reachable || o.Outages != 1 {
		t.Errorf("after an unanswered ping: %+v, want unreachable, 1 outage", o)
	}
	b.check()
	if o := b.stats(); o.Outages != 1 {
		t.Errorf("a second unanswered ping counted another outage: %+v", o)
	}
}

// TestBreakerStaleFailure: a call that began before an outage ended and
// fails after it does not begin another.
func TestBreakerStaleFailure(t *testing.T) {
	db := &fakeDatabase{}
	db.up.Store(true)
	b := newBreaker(db, slog.New(slog.DiscardHandler), func(bool) {})
	defer b.shut()
	epoch := b.outages.Load()
	b.open(epoch, driver.ErrBadConn)
	b.check() // answered: the outage ends
	b.open(epoch, driver.ErrBadConn)
	if o := b.stats(); !o.Reachable || o.Outages != 1 {
		t.Errorf("after a stale failure: %+v, want reachable, 1 outage", o)
	}
}

// TestUnreachableWithoutBreaker: with no Database watched, a call that
// cannot reach the database is still Unavailable, not Internal.
func TestUnreachableWithoutBreaker(t *testing.T) {
	w := startWorker(t, nil)
	w.board.errs["down"] = domainerr.Wrap(domainerr.Internal, fmt.Errorf("x: %w", driver.ErrBadConn), "internal error")
	_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "down"})
	if code := status.Code(err); code != codes.Unavailable {
		t.Errorf("code %v (%v), want Unavailable", code, err)
	}
}

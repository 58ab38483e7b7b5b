package worker

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/store"
)

// Database is what a worker watches of its database (store.Database is
// one): whether it answers, and a way to drop the pool's idle
// connections, which die with a server that restarts.
type Database interface {
	Ping(ctx context.Context) error
	DiscardIdle()
}

// How the breaker watches the database: while it answers, a ping every
// upCheck (calls failing find an outage sooner); while it does not, a ping
// every downCheck, so calls resume within that of its return. A ping
// taking longer than pingTimeout counts as no answer. The first ping of
// an outage waits downCheck too: a server crashing answers for a few
// milliseconds more on connections it has not cut yet.
const (
	upCheck     = 5 * time.Second
	downCheck   = 200 * time.Millisecond
	pingTimeout = time.Second
)

// errDatabaseDown answers every call while the breaker is open.
var errDatabaseDown = status.Error(codes.Unavailable, "the database cannot be reached just now: try again in a moment")

// OutageStats is what the breaker counts, for metrics.
type OutageStats struct {
	Reachable bool   // the database answers (the breaker is closed)
	Outages   uint64 // outages begun since the worker started
	Refused   uint64 // calls refused while the database was unreachable
}

// breaker is the worker's circuit breaker on its database. The first call
// failing because the database is unreachable (store.Unreachable), or a
// ping going unanswered, opens it: from then on every call is answered
// Unavailable at once, without touching the database, the worker's gRPC
// health (and so its readiness) is NOT_SERVING, and front doors route
// around it. Only a ping every downCheck reaches the database, each on a
// new connection (the pool's idle ones are dropped first: they are dead if
// the server restarted, and one the server has not cut yet would answer
// for a server going down); the first answered closes the breaker. An outage logs one record when it
// begins and one when it ends, never one per call: a storm of instant
// failures neither floods the log nor meets the database as it returns.
type breaker struct {
	db      Database
	log     *slog.Logger
	serving func(bool) // sets the worker's health

	mu    sync.Mutex  // orders open and close
	down  atomic.Bool // read lock-free by every call (guard)
	since time.Time   // when the outage began; under mu

	outages atomic.Uint64
	refused atomic.Uint64
	kick    chan struct{} // wakes run when an outage begins
	stop    chan struct{}
	done    chan struct{}
}

func newBreaker(db Database, log *slog.Logger, serving func(bool)) *breaker {
	b := &breaker{db: db, log: log, serving: serving,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// run pings the database, every upCheck while it answers and every
// downCheck while it does not, until close.
func (b *breaker) run() {
	defer close(b.done)
	t := time.NewTimer(upCheck)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-b.kick: // an outage began: its first ping after downCheck
			t.Reset(downCheck)
			continue
		case <-t.C:
		}
		b.check()
		if b.isDown() {
			t.Reset(downCheck)
		} else {
			t.Reset(upCheck)
		}
	}
}

// check pings the database once and opens or closes the breaker by the
// answer; during an outage, on a new connection.
func (b *breaker) check() {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if b.isDown() {
		b.db.DiscardIdle()
	}
	err := b.db.Ping(ctx)
	switch {
	case err != nil:
		b.open(b.outages.Load(), err)
	case b.isDown():
		b.close()
	}
}

// open begins an outage for err, seen by a call that began during the
// outage count epoch: one that began before the last outage ended meets
// that outage's end, which is no new one.
func (b *breaker) open(epoch uint64, err error) {
	b.mu.Lock()
	if b.down.Load() || b.outages.Load() != epoch {
		b.mu.Unlock()
		return
	}
	b.since = time.Now()
	b.down.Store(true)
	b.outages.Add(1)
	b.mu.Unlock()
	b.serving(false)
	b.log.Warn("worker: the database is unreachable; calls are answered as unavailable until it answers again", "err", err)
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// close ends the outage: calls and health resume.
func (b *breaker) close() {
	b.mu.Lock()
	b.down.Store(false)
	lasted := time.Since(b.since)
	refused := b.refused.Load()
	b.mu.Unlock()
	b.serving(true)
	b.log.Info("worker: the database answers again; calls are served", "outage", lasted.Round(time.Millisecond).String(), "refused_total", refused)
}

func (b *breaker) isDown() bool { return b.down.Load() }

// stats reports what the breaker counted.
func (b *breaker) stats() OutageStats {
	return OutageStats{Reachable: !b.isDown(), Outages: b.outages.Load(), Refused: b.refused.Load()}
}

// shut stops run.
func (b *breaker) shut() {
	close(b.stop)
	<-b.done
}

type epochKey struct{}

// guard is the breaker's interceptor: while the database is unreachable,
// every call but health is refused at once. Any other call carries the
// outage count it began under, for unreachable.
func (s *Server) guard(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	b := s.breaker
	if b == nil || isHealth(info.FullMethod) {
		return handler(ctx, req)
	}
	if b.isDown() {
		b.refused.Add(1)
		return nil, errDatabaseDown
	}
	return handler(context.WithValue(ctx, epochKey{}, b.outages.Load()), req)
}

// unreachable answers a call that failed because the database could not
// be reached (store.Unreachable): Unavailable, as for a lost worker,
// with the outage begun (and logged once) rather than this call logged.
func (s *Server) unreachable(ctx context.Context, err error) error {
	if b := s.breaker; b != nil {
		if epoch, ok := ctx.Value(epochKey{}).(uint64); ok {
			b.open(epoch, err)
		}
	}
	return errDatabaseDown
}

// dbFailure answers err of a database read made for a call (its token,
// its session) as unreachable when it is, else nil.
func (s *Server) dbFailure(ctx context.Context, err error) error {
	if store.Unreachable(err) && ctx.Err() == nil {
		return s.unreachable(ctx, err)
	}
	return nil
}

// Outages reports what the worker's breaker counted; zero values when it
// watches no database.
func (s *Server) Outages() OutageStats {
	if s.breaker == nil {
		return OutageStats{Reachable: true}
	}
	return s.breaker.stats()
}

// DatabaseReachable reports whether the database answers, as far as the
// breaker knows: a worker's readiness follows it.
func (s *Server) DatabaseReachable() bool { return s.Outages().Reachable }

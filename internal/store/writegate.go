package store

import (
	"context"
	"strings"
	"sync"
	"time"
)

// SQLite lets one writer in at a time, and a writer that finds the lock
// taken sleeps in its busy handler (1, 2, 5 … up to 100 ms) before it
// tries again, while writers arriving in between may take the lock first.
// Under a steady stream of writes that left some waiting for seconds:
// tasks_create from 16 callers at once had a median of 8 ms and a 99th
// percentile of 2 s. So the writers of one process queue for the lock on
// a writeGate, which lets them in one at a time in the order they came
// (a queue, each waiter handed the turn by the one leaving), and
// meet the busy handler only against other processes.
//
// The writers are SQLite's transactions, which all take the write lock at
// BEGIN (_txlock=immediate), and statements run outside one that write
// (see writes); reads do not queue, since WAL lets them run beside the
// writer.
type writeGate struct {
	mu    sync.Mutex
	busy  bool            // a writer has its turn
	queue []chan struct{} // the writers waiting, first come first; closed to hand one the turn
}

// gateWait bounds a writer's wait at the gate to the busy_timeout of
// sqlitePragmas: after it, the writer goes on to SQLite, which fails it
// as it would have (SQLITE_BUSY) if the lock is still taken. A writer
// therefore never waits at the gate for a transaction that will not end.
const gateWait = 10 * time.Second

func newWriteGate() *writeGate { return &writeGate{} }

// enter waits for the writer's turn and returns the function that ends
// it; that function may be called more than once. It fails only when ctx
// ends first.
func (g *writeGate) enter(ctx context.Context) (leave func(), err error) {
	g.mu.Lock()
	if !g.busy {
		g.busy = true
		g.mu.Unlock()
		return sync.OnceFunc(g.leave), nil
	}
	turn := make(chan struct{})
	g.queue = append(g.queue, turn)
	g.mu.Unlock()
	timer := time.NewTimer(gateWait)
	defer timer.Stop()
	select {
	case <-turn:
		return sync.OnceFunc(g.leave), nil
	case <-timer.C:
		if g.drop(turn) {
			return func() {}, nil
		}
		return sync.OnceFunc(g.leave), nil // handed the turn meanwhile
	case <-ctx.Done():
		if !g.drop(turn) {
			g.leave() // handed the turn meanwhile: pass it on
		}
		return nil, ctx.Err()
	}
}

// leave ends a turn: the first writer waiting gets it, or the gate is
// free.
func (g *writeGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.busy = false
		return
	}
	close(g.queue[0])
	g.queue = g.queue[1:]
}

// drop takes turn out of the queue, reporting false when it was handed
// the turn already.
func (g *writeGate) drop(turn chan struct{}) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, t := range g.queue {
		if t == turn {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			return true
		}
	}
	return false
}

// waiting is how many writers are queued, which tests watch.
func (g *writeGate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// writes reports whether query, a statement run outside a transaction,
// takes SQLite's write lock: whatever does not start with SELECT (ent's
// statements that write start with INSERT, UPDATE or DELETE).
func writes(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) < len("SELECT") || !strings.EqualFold(q[:len("SELECT")], "SELECT")
}

package store

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SQLite lets one writer in at a time, and a writer that finds the lock
// taken sleeps in its busy handler (1, 2, 5 … up to 100 ms) before it
// tries again, while writers arriving in between may take the lock first.
// Under a steady stream of writes that left some waiting for seconds:
// tasks_create from 16 callers at once had a median of 8 ms and a 99th
// percentile of 2 s. So the writers of one process queue for the lock on
// a writeGate, which lets them in one at a time in the order they came
// (Go serves a channel's waiting senders first come, first served), and
// meet the busy handler only against other processes.
//
// The writers are SQLite's transactions, which all take the write lock at
// BEGIN (_txlock=immediate), and statements run outside one that write
// (see writes); reads do not queue, since WAL lets them run beside the
// writer.
type writeGate struct {
	turn    chan struct{} // holds a token while a writer has its turn
	waiting atomic.Int32  // writers queued for their turn, which tests watch
}

// gateWait bounds a writer's wait at the gate to the busy_timeout of
// sqlitePragmas: after it, the writer goes on to SQLite, which fails it
// as it would have (SQLITE_BUSY) if the lock is still taken. A writer
// therefore never waits at the gate for a transaction that will not end.
const gateWait = 10 * time.Second

func newWriteGate() *writeGate { return &writeGate{turn: make(chan struct{}, 1)} }

// enter waits for the writer's turn and returns the function that ends
// it; that function may be called more than once. It fails only when ctx
// ends first.
func (g *writeGate) enter(ctx context.Context) (leave func(), err error) {
	select {
	case g.turn <- struct{}{}:
		return sync.OnceFunc(func() { <-g.turn }), nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	timer := time.NewTimer(gateWait)
	defer timer.Stop()
	select {
	case g.turn <- struct{}{}:
		return sync.OnceFunc(func() { <-g.turn }), nil
	case <-timer.C:
		return func() {}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// writes reports whether query, a statement run outside a transaction,
// takes SQLite's write lock: whatever does not start with SELECT (ent's
// statements that write start with INSERT, UPDATE or DELETE).
func writes(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) < len("SELECT") || !strings.EqualFold(q[:len("SELECT")], "SELECT")
}

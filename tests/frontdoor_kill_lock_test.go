package tests

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestFrontDoorKilledWhileWorkerWaits: a call whose front door is
// SIGKILLed while the worker waits for a lock another process holds (on
// SQLite its write lock, on PostgreSQL the rows of the tokens, which the
// worker notes the use of) ends at once in the worker, cancelled, instead
// of waiting on for a caller that is gone: SQLite's busy timeout is 10 s,
// and a PostgreSQL row lock has none. Its retry at the other front door,
// once the lock is let go, makes the task once.
func TestFrontDoorKilledWhileWorkerWaits(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			k := startFrontKill(t, b) // its token unused yet: its first call notes its use
			d, w := k.d, k.w
			lock := holdLock(t, b, d.db)
			args := map[string]any{"title": "Held create", "idempotency_key": "held"}
			go tryCall(context.Background(), d.frontAddr, k.token, "held-create", "tasks_create", args)
			poll.Until(t, 10*time.Second, "the call to wait for the lock in the worker", func() bool {
				return w.inFlight(t) >= k.idle+2 && lock.waited(t)
			})
			killed := k.killFront(t)
			// 5 s, half SQLite's busy timeout: waiting it out takes 10 s.
			var rec map[string]any
			poll.Until(t, 5*time.Second, "the worker to end the call of the killed front door while the lock is held", func() bool {
				rec = w.call("/taskwire.v1.BoardService/CreateTask", "held-create")
				return rec != nil
			})
			if rec["code"] != "Canceled" {
				t.Errorf("the worker ended the call of the killed front door as %v, want Canceled", rec["code"])
			}
			t.Logf("kill → the worker ended the call waiting for a lock as %v: %v", rec["code"], time.Since(killed).Round(time.Millisecond))
			k.checkNoCallLeft(t)
			lock.release()
			ref := k.retryCreate(t, killed, args)
			if got := k.refsInDB(t, task.Title("Held create")); len(got) != 1 || got[0] != ref {
				t.Errorf("tasks titled %q in the database = %v, want the one its retry returned, %s", "Held create", got, ref)
			}
		})
	}
}

// heldLock is a lock a test holds in its own database connection.
type heldLock struct {
	db      *sql.DB
	release func()
	waited  func(t *testing.T) bool // whether someone waits for it; on SQLite, which cannot tell, true
}

// holdLock takes, from a connection of the test's own, the lock a worker
// waits for to note a token's use: SQLite's write lock, or PostgreSQL's
// lock on every row of the tokens table that an UPDATE takes. It is let
// go of by release, or when the test ends.
func holdLock(t *testing.T, b storetest.Backend, dsn string) *heldLock {
	t.Helper()
	ctx := context.Background()
	driver, name, lock := "pgx", dsn, "BEGIN; SELECT jti FROM tokens FOR NO KEY UPDATE"
	if b == storetest.SQLite {
		driver, name, lock = "sqlite", strings.TrimPrefix(dsn, "sqlite:"), "BEGIN IMMEDIATE"
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, lock)
	}
	if err != nil {
		t.Fatal(err)
	}
	h := &heldLock{db: db, waited: func(*testing.T) bool { return true }}
	if b == storetest.Postgres {
		h.waited = h.tokensWaited
	}
	h.release = sync.OnceFunc(func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
		db.Close()
	})
	t.Cleanup(h.release)
	return h
}

// tokensWaited reports whether a PostgreSQL session waits for a lock to
// update the tokens table.
func (h *heldLock) tokensWaited(t *testing.T) bool {
	t.Helper()
	var n int
	err := h.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE "tokens"%'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/poll"
)

// A statement pushed out of the cache while other calls are running it,
// or have just taken it from the cache, stays open until they are done:
// with room for one statement and several callers taking turns with
// three, no call ever finds its statement closed.
func TestEvictedStatementsStayOpenWhileInUse(t *testing.T) {
	ctx := context.Background()
	drv, err := openDriver(ctx, "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	if err := drv.Exec(ctx, "CREATE TABLE n (v INTEGER)", []any{}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := newStmtDriver(drv, 1)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"SELECT ? + 1", "SELECT ? + 2", "SELECT ? + 3"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				q := (w + i) % len(queries)
				var rows entsql.Rows
				if err := d.Query(ctx, queries[q], []any{i}, &rows); err != nil {
					errs <- fmt.Errorf("query %q: %w", queries[q], err)
					return
				}
				var got int
				for rows.Next() {
					if err := rows.Scan(&got); err != nil {
						errs <- err
					}
				}
				rows.Close()
				if got != i+q+1 {
					errs <- fmt.Errorf("%q with %d = %d", queries[q], i, got)
					return
				}
				if i%50 == 0 {
					if err := d.Exec(ctx, "INSERT INTO n (v) VALUES (?)", []any{i}, nil); err != nil {
						errs <- fmt.Errorf("insert: %w", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var _ dialect.Driver = d

	// Taken from the cache, pushed out before it runs: still runs, and is
	// closed once released.
	s, release, err := d.stmt(ctx, "SELECT 40 + 2")
	if err != nil {
		t.Fatal(err)
	}
	k, ok := d.stmts.Peek("SELECT 40 + 2")
	if !ok {
		t.Fatal("the statement just prepared is not in the cache")
	}
	var rows entsql.Rows
	if err := d.Query(ctx, "SELECT 1", []any{}, &rows); err != nil { // evicts it
		t.Fatal(err)
	}
	rows.Close()
	if evicted, closing := k.state(); !evicted || closing {
		t.Fatalf("after its eviction in use: evicted %v, closing %v; want evicted and not closing", evicted, closing)
	}
	var got int
	if err := s.QueryRowContext(ctx).Scan(&got); err != nil || got != 42 {
		t.Fatalf("the statement in use after its eviction: %d, %v; want 42", got, err)
	}
	release()
	if _, closing := k.state(); !closing {
		t.Fatal("an evicted statement was not closed after its last use")
	}
	poll.Until(t, 5*time.Second, "the evicted statement to close after its last use", func() bool {
		return s.QueryRowContext(ctx).Scan(&got) != nil
	})
}

// state reports whether k was evicted and whether its close has begun.
func (k *keptStmt) state() (evicted, closing bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.evicted, k.closing
}

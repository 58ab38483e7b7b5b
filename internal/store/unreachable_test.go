package store_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/pgtest"
)

// TestUnreachableValues classifies errors made by hand: the SQLSTATEs a
// server sends when it cannot serve, and the errors that are no outage.
func TestUnreachableValues(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P02"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "08P01"}, true},
		{fmt.Errorf("store: commit: %w", driver.ErrBadConn), true},
		{domainerr.Wrap(domainerr.Internal, &pgconn.PgError{Code: "57P01"}, "internal error"), true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique_violation
		{&pgconn.PgError{Code: "42601"}, false}, // syntax_error
		{&pgconn.PgError{Code: "57014"}, false}, // query_canceled
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), false},
		{sql.ErrNoRows, false},
		{errors.New("boom"), false},
		{nil, false},
	} {
		if got := store.Unreachable(tc.err); got != tc.want {
			t.Errorf("Unreachable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestUnreachableClosedPort classifies what pgx and database/sql return
// when nothing listens where the database should be.
func TestUnreachableClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable&connect_timeout=2", l.Addr())
	l.Close()
	ctx := context.Background()

	_, err = pgx.Connect(ctx, url)
	if !store.Unreachable(err) {
		t.Errorf("pgx.Connect to a closed port: Unreachable(%v) = false, want true", err)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); !store.Unreachable(err) {
		t.Errorf("Ping of a closed port: Unreachable(%v) = false, want true", err)
	}
	if _, err := db.ExecContext(ctx, "SELECT 1"); !store.Unreachable(err) {
		t.Errorf("Exec on a closed port: Unreachable(%v) = false, want true", err)
	}
}

// TestUnreachableCrash classifies what calls get from a server that
// crashes under them: a query on a connection idle since, a statement
// and the commit of a transaction it had open, and new connections while
// it is down.
func TestUnreachableCrash(t *testing.T) {
	pg := pgtest.Start(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idle, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE t (id int)"); err != nil {
		t.Fatal(err)
	}
	pg.Crash(t)

	_, err = idle.ExecContext(ctx, "SELECT 1")
	check(t, "a query on a connection idle through the crash", err)
	_, err = tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	check(t, "a statement of a transaction open through the crash", err)
	check(t, "the commit of that transaction", tx.Commit())
	check(t, "a ping while the server is down", db.PingContext(ctx))
	_, err = db.ExecContext(ctx, "SELECT 1")
	check(t, "a query while the server is down", err)
}

func check(t *testing.T, what string, err error) {
	t.Helper()
	if !store.Unreachable(err) {
		t.Errorf("%s: Unreachable(%v) = false, want true (%T)", what, err, err)
	}
}

// TestPoolRecovers fills a Database's pool, crashes the server under it
// and starts it again: once it answers, every call succeeds at once, none
// failing on a connection that died. pgx pings a connection idle for over
// a second before handing it out, which is enough after a restart this
// slow; DiscardIdle, which the worker's breaker calls before each ping of
// an outage, covers a faster one.
func TestPoolRecovers(t *testing.T) {
	pg := pgtest.Start(t)
	ctx := context.Background()
	if _, err := store.Migrate(ctx, pg.URL(), store.Logger(slog.New(slog.DiscardHandler))); err != nil {
		t.Fatal(err)
	}
	d, err := store.Connect(ctx, pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const n = 16
	if errs := concurrently(n, func() error {
		// Each holds a connection a while, so the pool ends up with n.
		tx, err := d.Client.Tx(ctx)
		if err != nil {
			return err
		}
		_, err = tx.Tenant.Query().Count(ctx)
		time.Sleep(50 * time.Millisecond)
		return errors.Join(err, tx.Commit())
	}); len(errs) > 0 {
		t.Fatalf("before the crash: %v", errs)
	}
	pg.Crash(t)
	pg.Start(t)
	start := time.Now()
	for d.Ping(ctx) != nil {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the database did not answer a ping within 10 s of starting")
		}
	}
	d.DiscardIdle()
	if errs := concurrently(n, func() error {
		_, err := d.Client.Tenant.Query().Count(ctx)
		return err
	}); len(errs) > 0 {
		t.Errorf("after the restart, %d of %d calls failed: %v", len(errs), n, errs)
	}
}

// concurrently runs fn n times at once and returns the errors.
func concurrently(n int, fn func() error) []error {
	ch := make(chan error, n)
	for range n {
		go func() { ch <- fn() }()
	}
	var errs []error
	for range n {
		if err := <-ch; err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

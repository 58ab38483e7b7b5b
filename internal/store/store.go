// Package store opens Taskwire's database: SQLite (pure Go, for the embedded
// single-process mode and tests) or PostgreSQL (for real deployments), both
// behind the same ent client, migrated on open, with the full-text index
// ent cannot declare.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver

	"github.com/taskwire/taskwire/internal/ent"
	_ "github.com/taskwire/taskwire/internal/ent/runtime" // defaults, validators and privacy policies
)

// sqlitePragmas are added to every SQLite DSN: foreign keys are needed by the
// migration and the schema, WAL lets readers run beside the writer,
// mmap_size reads the database file through a memory map (up to 256 MB of
// it) shared by every connection and kept by the kernel's page cache,
// rather than a read system call per page missing from each connection's
// 2 MB page cache (a search on a board of 20,000 tasks took 10.4 ms, 6.5
// with the map), busy_timeout makes a second writer wait instead of
// failing, and _txlock=immediate takes the write lock at BEGIN so two
// transactions that read then write cannot deadlock on lock upgrade.
var sqlitePragmas = []string{
	"_pragma=foreign_keys(1)",
	"_pragma=journal_mode(WAL)",
	"_pragma=mmap_size(268435456)",
	"_pragma=busy_timeout(10000)",
	"_txlock=immediate",
}

// Open connects to the database named by dsn, migrates its schema, sets
// up full-text search over tasks (see SearchTable) and records the schema
// version, as Migrate does: the one-process server and tools use it, a
// deployment's workers use Connect.
// dsn is "sqlite:<path>" or "file:<path>" for SQLite (the parent directory is
// created if missing), or "postgres://…" / "postgresql://…" for PostgreSQL.
// opts must name a Logger (for the backfill) and may change the client
// built (WrapDriver).
func Open(ctx context.Context, dsn string, opts ...Option) (*ent.Client, error) {
	o := collect(opts)
	if o.log == nil {
		return nil, errNoLogger
	}
	drv, err := openDriver(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if _, err := migrate(ctx, drv, o); err != nil {
		drv.Close()
		return nil, err
	}
	c, err := newClient(drv, opts)
	if err != nil {
		drv.Close()
		return nil, err
	}
	return c, nil
}

func openDriver(ctx context.Context, dsn string) (*entsql.Driver, error) {
	scheme, _, ok := strings.Cut(dsn, ":")
	if !ok {
		return nil, fmt.Errorf("store: database %q has no scheme: use sqlite:<path> or postgres://user@host/db", dsn)
	}
	if path, query, ok := sqliteFile(dsn); ok {
		return openSQLite(ctx, path, query)
	}
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return openDB(ctx, "pgx", dialect.Postgres, dsn)
	}
	return nil, fmt.Errorf("store: unknown database scheme %q in %q: use sqlite:<path>, file:<path>, postgres:// or postgresql://", scheme, redact(dsn))
}

// sqliteFile returns the path and the query of a SQLite dsn, sqlite:<path>
// or file:<path> with an optional ?query; false for any other scheme.
func sqliteFile(dsn string) (path, query string, ok bool) {
	scheme, rest, _ := strings.Cut(dsn, ":")
	switch strings.ToLower(scheme) {
	case "sqlite", "file":
		path, query, _ = strings.Cut(rest, "?")
		return path, query, true
	}
	return "", "", false
}

func openSQLite(ctx context.Context, path, query string) (*entsql.Driver, error) {
	if path == "" {
		return nil, errors.New("store: sqlite database has no path: use sqlite:<path>, e.g. sqlite:./taskwire-data/taskwire.db")
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("store: create database directory: %w", err)
		}
		if err := makePrivate(path); err != nil {
			return nil, err
		}
	}
	params := sqlitePragmas
	if query != "" {
		params = append([]string{query}, sqlitePragmas...)
	}
	drv, err := openDB(ctx, "sqlite", dialect.SQLite, "file:"+path+"?"+strings.Join(params, "&"))
	if err != nil {
		return nil, err
	}
	if path == ":memory:" {
		drv.DB().SetMaxOpenConns(1) // each connection would get its own empty database
	}
	return drv, nil
}

func openDB(ctx context.Context, driver, dia, dsn string) (*entsql.Driver, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dia, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect to %s database %s: %w", dia, redact(dsn), err)
	}
	// Keep as many connections idle as are busy at a peak: opening one
	// costs far more than a statement (SQLite reads the schema and runs
	// its pragmas; PostgreSQL forks a backend), and database/sql keeps
	// only two by default, so a burst of calls would open and close
	// connections all the time. Idle ones close after a while.
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(connMaxIdleTime)
	return entsql.OpenDB(dia, db), nil
}

// redact hides a password in a URL-shaped dsn, so errors can be logged.
func redact(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return dsn
	}
	userinfo, host, ok := strings.Cut(rest, "@")
	if !ok {
		return dsn
	}
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return dsn
}

// The idle connection pool: see openDB.
const (
	maxIdleConns    = 64
	connMaxIdleTime = 5 * time.Minute
)

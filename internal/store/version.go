package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
)

// SchemaVersion is the version of the schema this build migrates to and
// needs. Bump it with every change to the ent schema or to the search
// setup, so that workers started without migrating refuse an older
// database instead of failing on their first query
// (TestSchemaVersionCoversSchema fails until it is bumped).
const SchemaVersion = 12

// VersionTable records the schema version a migration reached: one row,
// id 1. It is plain SQL, outside ent, so that reading it needs no schema
// of its own; the copy to PostgreSQL (internal/dbcopy) reads it too.
const VersionTable = "taskwire_schema"

var createVersionTable = `CREATE TABLE IF NOT EXISTS ` + VersionTable +
	` (id INTEGER PRIMARY KEY, version INTEGER NOT NULL, migrated_at TIMESTAMP NOT NULL)`

// recordVersion is an upsert both SQLite and PostgreSQL understand.
var recordVersion = `INSERT INTO ` + VersionTable + ` (id, version, migrated_at) VALUES (1, ` +
	strconv.Itoa(SchemaVersion) + `, CURRENT_TIMESTAMP) ON CONFLICT (id) DO UPDATE SET version = excluded.version, migrated_at = excluded.migrated_at`

// ErrSchemaBehind is the error of Connect on a database whose schema is
// older than SchemaVersion (or was never migrated).
var ErrSchemaBehind = errors.New("store: database schema is behind")

// ErrSchemaAhead is the error of Migrate on a database a newer build
// migrated: an older migration must not run over it.
var ErrSchemaAhead = errors.New("store: database schema is newer than this build")

// Migrate brings the schema of the database named by dsn to SchemaVersion
// (ent's migration, the full-text search setup, then the backfill of rows
// older builds wrote) and records the version. Run it once before a rollout; running it again, or from two
// processes at once, is safe: on PostgreSQL the migrators take turns on
// an advisory lock. It returns the version the database had before (0:
// none recorded). opts must name a Logger, for the backfill.
func Migrate(ctx context.Context, dsn string, opts ...Option) (from int, err error) {
	o := collect(opts)
	if o.log == nil {
		return 0, errNoLogger
	}
	drv, err := openDriver(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer drv.Close()
	return migrate(ctx, drv, o)
}

// migrate runs the migration on drv under the migration lock: ent's
// schema, the search setup, then the backfill of existing rows.
func migrate(ctx context.Context, drv *entsql.Driver, o options) (from int, err error) {
	unlock, err := lockMigration(ctx, drv)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if _, err := drv.DB().ExecContext(ctx, createVersionTable); err != nil {
		return 0, fmt.Errorf("store: create %s: %w", VersionTable, err)
	}
	if from, err = ReadVersion(ctx, drv); err != nil {
		return 0, err
	}
	if from > SchemaVersion {
		return from, fmt.Errorf("%w: it is at version %d, this build migrates to %d; run the newer build's migration", ErrSchemaAhead, from, SchemaVersion)
	}
	// Not closed: closing the client would close drv, which the caller owns.
	client := ent.NewClient(ent.Driver(drv))
	if err := client.Schema.Create(ctx); err != nil {
		return from, fmt.Errorf("store: migrate schema: %w", err)
	}
	if err := setupSearch(ctx, drv, o.log); err != nil {
		return from, err
	}
	if err := backfill(ctx, client, drv, o.log, from); err != nil {
		return from, err
	}
	if _, err := drv.DB().ExecContext(ctx, recordVersion); err != nil {
		return from, fmt.Errorf("store: record schema version: %w", err)
	}
	return from, nil
}

// migrationLock keys PostgreSQL's advisory lock of migrations, together
// with the schema's name, so deployments in other schemas of the same
// database do not wait for each other. It differs from the search setup's
// key, which migrate takes while holding this one.
const migrationLock = 7346250

// lockMigration makes concurrent migrations of one PostgreSQL schema take
// turns: a session lock on a connection of its own, released by the
// returned function (or by PostgreSQL, if this process dies). SQLite
// needs none here: its write lock is taken at BEGIN.
func lockMigration(ctx context.Context, drv *entsql.Driver) (func(), error) {
	if drv.Dialect() != dialect.Postgres {
		return func() {}, nil
	}
	conn, err := drv.DB().Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migration lock: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, migrationLock); err != nil {
		conn.Close()
		return nil, fmt.Errorf("store: migration lock: %w", err)
	}
	return func() {
		// A fresh context: the lock must go even when ctx has ended.
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, migrationLock)
		conn.Close()
	}, nil
}

// ReadVersion returns the schema version recorded in drv's database: 0
// when there is no version table or no row yet. It changes nothing, so a
// backup reads it from the copy it made, for restore to compare with the
// build that restores it.
func ReadVersion(ctx context.Context, drv *entsql.Driver) (int, error) {
	exists := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '` + VersionTable + `'`
	if drv.Dialect() == dialect.Postgres {
		exists = `SELECT count(*) FROM (SELECT to_regclass('` + VersionTable + `') AS t) r WHERE t IS NOT NULL`
	}
	var n int
	if err := drv.DB().QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	var v int
	err := drv.DB().QueryRowContext(ctx, `SELECT version FROM `+VersionTable+` WHERE id = 1`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return v, nil
}

// Database is a database opened without migrating (Connect): its ent
// client, and the pool under it so that readiness probes can ping it.
type Database struct {
	Client  *ent.Client
	Version int // the schema version the database records
	db      *sql.DB
}

// Ping reports whether the database answers.
func (d *Database) Ping(ctx context.Context) error { return d.db.PingContext(ctx) }

// Close closes the client and its pool.
func (d *Database) Close() error { return d.Client.Close() }

// Connect opens the database named by dsn without changing its schema, as
// a worker of a deployment does: migrations are the job of one Migrate
// before a rollout. It fails with ErrSchemaBehind when the database
// records an older version than SchemaVersion; a newer one is accepted,
// since migrations only add, so older workers keep running through a
// rollout. opts change the client built (WrapDriver).
func Connect(ctx context.Context, dsn string, opts ...Option) (*Database, error) {
	drv, err := openDriver(ctx, dsn)
	if err != nil {
		return nil, err
	}
	v, err := ReadVersion(ctx, drv)
	if err == nil && v < SchemaVersion {
		err = fmt.Errorf("%w: it is at version %d, this build needs %d; run the migration (taskwire migrate) first", ErrSchemaBehind, v, SchemaVersion)
	}
	if err != nil {
		drv.Close()
		return nil, err
	}
	c, err := newClient(drv, opts)
	if err != nil {
		drv.Close()
		return nil, err
	}
	return &Database{Client: c, Version: v, db: drv.DB()}, nil
}

// DiscardIdle closes the pool's idle connections. After the server
// restarts, every one of them is dead; pgx finds that out only by
// pinging a connection idle for over a second before handing it out, or
// by failing a call on it, so a worker drops them all before each ping
// of an outage, which then proves the server takes new connections (see
// the worker's breaker).
func (d *Database) DiscardIdle() {
	d.db.SetMaxIdleConns(0)
	d.db.SetMaxIdleConns(maxIdleConns)
}

package store

import (
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
)

// Option changes how Open and Connect build the client they return, or
// what Migrate tells.
type Option func(*options)

type options struct {
	wrap    func(*sql.DB, dialect.Driver) dialect.Driver
	log     *slog.Logger
	reserve *Reserve
}

// Logger has a migration log what it changed in existing rows (the
// backfill), e.g. an assistant it lowered. Open and Migrate require it.
func Logger(log *slog.Logger) Option {
	return func(o *options) { o.log = log }
}

// collect applies opts.
func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// errNoLogger is the error of Open and Migrate without a Logger option:
// what a migration changes in existing rows must be told somewhere.
var errNoLogger = errors.New("store: Logger is required to migrate: pass store.Logger(log)")

// WrapDriver has the client run its statements through fn's driver, built
// over the opened one (whose connection pool is db) once the schema is
// migrated or checked: telemetry wraps it to trace statements and to
// watch the pool (telemetry's EntDriver fits), while migrations and
// version checks stay untraced.
func WrapDriver(fn func(db *sql.DB, d dialect.Driver) dialect.Driver) Option {
	return func(o *options) { o.wrap = fn }
}

// newClient builds the client over drv, wrapped as opts ask. On SQLite,
// the client's statements are prepared once and kept, a full disk is
// logged once per episode (stmtDriver), and the Reserve kept, if any, is
// placed beside the database.
func newClient(drv *entsql.Driver, opts []Option) (*ent.Client, error) {
	o := collect(opts)
	var d dialect.Driver = drv
	if drv.Dialect() == dialect.SQLite {
		sd, err := newStmtDriver(drv, stmtCacheSize)
		if err != nil {
			return nil, err
		}
		sd.watch = newDiskWatch(o.log, sqliteDir(drv.DB()))
		sd.watch.reserve = o.reserve
		o.reserve.place(sd.watch.dir)
		d = sd
	}
	if o.wrap != nil {
		d = o.wrap(drv.DB(), d)
	}
	return ent.NewClient(ent.Driver(d)), nil
}

// sqliteDir is the directory of the main database of db, "" if it has
// none (in memory) or cannot tell.
func sqliteDir(db *sql.DB) string {
	var (
		seq        int
		name, file string
	)
	if err := db.QueryRow("PRAGMA database_list").Scan(&seq, &name, &file); err != nil || file == "" {
		return ""
	}
	return filepath.Dir(file)
}

package backup

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/tokens"
)

// snapshot writes a consistent copy of the live SQLite database at live
// into the empty file at to, with VACUUM INTO on a connection of its
// own: it reads in one transaction, so it sees the database as it was
// when it began, and the server's writer goes on meanwhile (a WAL reader
// does not block it). The live database is opened read-write only
// because a read-only connection cannot share a live write-ahead log's
// index; nothing is written to it, and it is never created.
func snapshot(ctx context.Context, live, to string) error {
	db, err := sql.Open("sqlite", "file:"+live+"?mode=rw&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", to); err != nil {
		if damaged(err) {
			return fmt.Errorf("the database %s is damaged (SQLite: %w), so no backup of it can be trusted: keep your last good backup; "+
				"stop taskwire serve, and restore that backup or save what is readable (sqlite3's .recover)", live, err)
		}
		return fmt.Errorf("snapshot of %s: %w", live, err)
	}
	return nil
}

// damaged reports whether err is SQLite's finding that a database file
// is damaged, or is no database.
func damaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff { // the primary code, without the extended bits
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// snapshotFacts are what a backup records of its snapshot.
type snapshotFacts struct {
	version   int
	publicURL string
}

// The checks a database file gets. A backup runs SQLite's full integrity
// check on its snapshot: a live database damaged on disk is then found
// when the backup is made, not when it is needed. A restore runs the
// quick check, which reads every page but skips comparing each index
// with its table (a third of the time on a 756 MB database): the
// checksums already proved the file is, byte for byte, the snapshot that
// passed the full check.
const (
	fullCheck  = "integrity_check(10)"
	quickCheck = "quick_check(10)"
)

// inspect runs check on the database at path, which nothing else uses,
// and reads its schema version and, with publicURL, the public URL its
// live tokens were issued for.
func inspect(ctx context.Context, path, check string, publicURL bool) (snapshotFacts, error) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return snapshotFacts{}, err
	}
	drv := entsql.OpenDB(dialect.SQLite, db)
	defer drv.Close()
	if err := checkDB(ctx, db, path, check); err != nil {
		return snapshotFacts{}, err
	}
	v, err := store.ReadVersion(ctx, drv)
	if err != nil {
		return snapshotFacts{}, err
	}
	f := snapshotFacts{version: v}
	if publicURL && v == store.SchemaVersion { // another schema's tables may not fit this build's queries
		f.publicURL = issuedFor(ctx, drv)
	}
	return f, nil
}

// checkDB fails unless the pragma check finds the database of db (at
// path) sound.
func checkDB(ctx context.Context, db *sql.DB, path, check string) error {
	rows, err := db.QueryContext(ctx, "PRAGMA "+check)
	if err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("integrity check of %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the database in %s is damaged: SQLite's integrity check found %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// issuedFor returns the public URL most live tokens of the database were
// issued for, "" when none or when it cannot tell: a backup is still
// worth making without it.
func issuedFor(ctx context.Context, drv *entsql.Driver) string {
	st, err := tokens.New(tokens.Config{Client: ent.NewClient(ent.Driver(drv)), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return ""
	}
	urls, err := st.IssuedElsewhere(ctx, "") // every issuer but none
	if err != nil || len(urls) == 0 {
		return ""
	}
	return slices.MaxFunc(slices.Sorted(maps.Keys(urls)), func(a, b string) int {
		return cmp.Or(cmp.Compare(urls[a], urls[b]), cmp.Compare(b, a))
	})
}

// removeDB removes a database file of this package's own making and
// whatever SQLite kept beside it.
func removeDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
}

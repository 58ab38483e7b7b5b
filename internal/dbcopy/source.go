package dbcopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskwire/taskwire/internal/store"
)

// source is serve's SQLite database, opened read-only, and one read
// transaction on it: in WAL mode that is a snapshot, which every table is
// read from, so the copy and its check see the same rows even if serve
// writes meanwhile.
type source struct {
	Path string // the database file
	db   *sql.DB
	tx   *sql.Tx
}

// openSource opens the database from names (sqlite:<path>, a path, or a
// data directory) and checks that it is at this build's schema version.
func openSource(ctx context.Context, from string) (*source, error) {
	path, err := DatabaseFile(from)
	if err != nil {
		return nil, err
	}
	// Read-only: the copy never changes the database it may be rolled
	// back to, and opening a missing file creates nothing.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("dbcopy: open %s: %w", path, err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("dbcopy: read %s: %w", path, err)
	}
	s := &source{Path: path, db: db, tx: tx}
	if err := s.checkVersion(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// DatabaseFile returns the SQLite database file that from names:
// sqlite:<path>, a path, or serve's data directory. It refuses anything
// else, and a file that does not exist, with a sentence saying what to
// pass.
func DatabaseFile(from string) (string, error) {
	if from == "" {
		return "", errors.New("dbcopy: name serve's database to copy from: sqlite:<data dir>/taskwire.db, or the data directory")
	}
	path := from
	if scheme, rest, ok := strings.Cut(from, ":"); ok && len(scheme) > 1 {
		switch strings.ToLower(scheme) {
		case "sqlite", "file":
			path, _, _ = strings.Cut(rest, "?")
		default:
			return "", fmt.Errorf("dbcopy: %q is not serve's SQLite database: the copy reads sqlite:<path> or serve's data directory, and writes to PostgreSQL", from)
		}
	}
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		path = filepath.Join(path, "taskwire.db")
		st, err = os.Stat(path)
	}
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("dbcopy: there is no SQLite database at %s: name serve's database (sqlite:<data dir>/taskwire.db) or its data directory", path)
	}
	return path, nil
}

// checkVersion refuses a database whose recorded schema version is not
// this build's: the copy writes this build's schema, and the columns of
// another version would not fit it.
func (s *source) checkVersion(ctx context.Context) error {
	var v int
	err := s.tx.QueryRowContext(ctx, `SELECT version FROM `+store.VersionTable+` WHERE id = 1`).Scan(&v)
	if err != nil {
		return fmt.Errorf("dbcopy: %s records no schema version (%v): is it a Taskwire database? Start this version's taskwire serve on it once, then stop it, and copy again", s.Path, err)
	}
	switch {
	case v < store.SchemaVersion:
		return fmt.Errorf("dbcopy: %s is at schema version %d and this build copies version %d: upgrade it first by starting this version's taskwire serve on its data directory once (then stop it), or copy with the Taskwire release that wrote it", s.Path, v, store.SchemaVersion)
	case v > store.SchemaVersion:
		return fmt.Errorf("dbcopy: %s is at schema version %d, newer than this build's %d: copy with the Taskwire release that wrote it (or a newer one)", s.Path, v, store.SchemaVersion)
	}
	return nil
}

// lastIDs returns the highest id SQLite handed out for each table, from
// sqlite_sequence, so the target never hands out again the id of a row
// deleted before the copy.
func (s *source) lastIDs(ctx context.Context) (map[string]int64, error) {
	var n int
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT name, seq FROM sqlite_sequence`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var seq int64
		if err := rows.Scan(&name, &seq); err != nil {
			return nil, err
		}
		out[name] = seq
	}
	return out, rows.Err()
}

func (s *source) close() {
	s.tx.Rollback()
	s.db.Close()
}

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// sqliteFiles are the suffixes of a database's files: the database, and
// the files SQLite keeps beside it in WAL mode (and the rollback journal
// of other modes), which hold its pages too.
var sqliteFiles = []string{"", "-wal", "-shm", "-journal"}

// makePrivate makes the SQLite database at path readable by its owner
// only (0600), whatever the umask: it holds every tenant's tasks and the
// signing keys' public halves. A missing database is created empty (an
// empty file is a new SQLite database) with mode 0600; SQLite then
// creates its -wal and -shm files with the database's mode, past the
// umask. A database, or a companion, made by an earlier version with a
// wider mode is narrowed.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: open the database file %s: %w", path, err)
	}
	f.Close()
	for _, suffix := range sqliteFiles {
		p := path + suffix
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			if err := os.Chmod(p, mode&0o700); err != nil {
				return fmt.Errorf("store: %s has mode %04o and cannot be made private (%w): chmod 600 it", p, mode, err)
			}
		}
	}
	return nil
}

// SQLiteDir returns the directory of the SQLite database dsn names, and
// false for a database that is no SQLite file (PostgreSQL, :memory:).
func SQLiteDir(dsn string) (string, bool) {
	path, _, ok := sqliteFile(dsn)
	if !ok || path == "" || path == ":memory:" {
		return "", false
	}
	return filepath.Dir(path), true
}

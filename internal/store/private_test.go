//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/taskwire/taskwire/internal/store"
)

// withUmask runs the test under umask mask, as a shell with the usual
// 022 would start the server.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, want %04o", filepath.Base(path), got, want)
	}
}

// TestSQLiteFilesPrivate: under umask 022 the database, its WAL and its
// shared-memory file are made 0600, and so is its directory when made.
func TestSQLiteFilesPrivate(t *testing.T) {
	withUmask(t, 0o022)
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "taskwire.db")
	c, err := store.Open(context.Background(), "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A write, so the WAL holds pages while the client is open.
	if _, err := c.Tenant.Create().SetSlug("acme").SetName("Acme").Save(system); err != nil {
		t.Fatal(err)
	}
	wantMode(t, dir, 0o700)
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		wantMode(t, p, 0o600)
	}
}

// TestSQLiteFilesNarrowed: a database an earlier version left readable by
// everyone is made private when opened.
func TestSQLiteFilesNarrowed(t *testing.T) {
	withUmask(t, 0o022)
	path := filepath.Join(t.TempDir(), "taskwire.db")
	c, err := store.Open(context.Background(), "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil { // an empty WAL: nothing to replay
		t.Fatal(err)
	}
	wantMode(t, path+"-wal", 0o644)
	c, err = store.Open(context.Background(), "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantMode(t, path, 0o600)
	wantMode(t, path+"-wal", 0o600)
}

func TestSQLiteDir(t *testing.T) {
	for dsn, want := range map[string]string{
		"sqlite:taskwire-data/taskwire.db":        "taskwire-data",
		"file:/var/lib/taskwire/t.db?cache=share": "/var/lib/taskwire",
		"sqlite::memory:":                         "",
		"postgres://db/taskwire":                  "",
	} {
		if got, ok := store.SQLiteDir(dsn); got != want || ok != (want != "") {
			t.Errorf("SQLiteDir(%q) = %q, %v; want %q", dsn, got, ok, want)
		}
	}
}

//go:build unix

package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestServeDataPrivate: `taskwire serve` under umask 022 keeps its
// database, WAL and shared memory at 0600, and warns at start that its
// data directory, made readable by all, is open to other users.
func TestServeDataPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{"serve", "--addr", nodetest.FreeAddr(t), "--data", dir, "--shutdown-grace", "5s"}, true)
	defer s.stop(t)
	for _, name := range []string{"taskwire.db", "taskwire.db-wal", "taskwire.db-shm"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", name, mode)
		}
	}
	if logs := s.logs.String(); !strings.Contains(logs, "the data directory is open to other users") || !strings.Contains(logs, `"mode":"0755"`) {
		t.Errorf("serve logged no warning about its data directory (0755):\n%s", logs)
	}
}

// TestWorkerDataDirWarning: a worker on SQLite warns about the database's
// directory; on PostgreSQL there is none to warn about.
func TestWorkerDataDirWarning(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o750)
	for dsn, want := range map[string]bool{
		"sqlite:" + filepath.Join(dir, "t.db"): true,
		"postgres://db/taskwire":               false,
	} {
		var logs strings.Builder
		var c nodeConfig
		c.DB = dsn
		warnOpenDirs(slog.New(slog.NewTextHandler(&logs, nil)), &c.config)
		if got := strings.Contains(logs.String(), "open to other users"); got != want {
			t.Errorf("worker on %s warned %v, want %v:\n%s", dsn, got, want, logs.String())
		}
	}
	os.Chmod(dir, 0o700)
	var logs strings.Builder
	warnOpenDirs(slog.New(slog.NewTextHandler(&logs, nil)), &config{DB: "sqlite:" + filepath.Join(dir, "t.db")})
	if logs.Len() != 0 {
		t.Errorf("a private directory drew a warning: %s", logs.String())
	}
}

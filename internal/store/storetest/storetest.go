// Package storetest opens a fresh, migrated database for one test on each
// backend Taskwire supports: SQLite always, PostgreSQL when
// TASKWIRE_TEST_POSTGRES names a server. Each PostgreSQL test gets its own
// schema, dropped at cleanup, so tests can run in parallel on one database.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
)

// EnvPostgres names the environment variable holding the URL of a PostgreSQL
// database for tests, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvPostgres = "TASKWIRE_TEST_POSTGRES"

// Backend is a kind of database tests can run on.
type Backend string

// The backends.
const (
	SQLite   Backend = "sqlite"
	Postgres Backend = "postgres"
)

// Backends returns every backend. Open skips the test for one that is not
// configured, so the skip shows up in `go test -v`.
func Backends() []Backend {
	return []Backend{SQLite, Postgres}
}

// Run runs fn as a subtest named after each backend, with a fresh database.
func Run(t *testing.T, fn func(t *testing.T, client *ent.Client)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(string(b), func(t *testing.T) {
			fn(t, Open(t, b))
		})
	}
}

// Open returns a client of a new, empty, migrated database on backend b,
// closed and removed when the test ends. It skips the test when b is
// PostgreSQL and EnvPostgres is not set.
func Open(t testing.TB, b Backend) *ent.Client {
	t.Helper()
	dsn := DSN(t, b)
	client, err := store.Open(context.Background(), dsn, store.Logger(Logger()))
	if err != nil {
		t.Fatalf("store.Open(%s) = %v, want a client", b, err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// Logger is the logger of a test's stores and services: it drops what
// they log, as nothing of it is asserted by tests that use it (tests that
// check a log line pass a logger of their own).
func Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// DSN returns the address of a new, empty database on backend b, removed
// when the test ends, for code that opens the database itself. It skips the
// test when b is PostgreSQL and EnvPostgres is not set.
func DSN(t testing.TB, b Backend) string {
	t.Helper()
	switch b {
	case SQLite:
		return "sqlite:" + filepath.Join(t.TempDir(), "taskwire.db")
	case Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("storetest.DSN: unknown backend %q", b)
	return ""
}

// postgresSchema creates a schema with a random name, registers its removal,
// and returns a URL whose connections use it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skip(EnvPostgres + " not set: skipping PostgreSQL tests")
	}
	name := "taskwire_test_" + randomHex(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("sql.Open(pgx, %s) = %v", EnvPostgres, err)
	}
	// pg_trgm once in the database's own schema, as a deployment has it:
	// created by the first test's store, it would live in that test's
	// schema and go with it, and with every other test's trigram index.
	// An error (a race with another test process) leaves it to the store.
	admin.Exec("CREATE EXTENSION IF NOT EXISTS pg_trgm")
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		admin.Close()
		t.Fatalf("CREATE SCHEMA %s: %v", name, err)
	}
	// Registered before Open's client.Close, so it runs after it.
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec("DROP SCHEMA " + name + " CASCADE"); err != nil {
			t.Errorf("DROP SCHEMA %s: %v", name, err)
		}
	})
	return withSearchPath(t, base, name)
}

func withSearchPath(t testing.TB, base, schema string) string {
	if !strings.Contains(base, "://") { // keyword/value form
		return base + " search_path=" + schema
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", EnvPostgres, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(t testing.TB) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

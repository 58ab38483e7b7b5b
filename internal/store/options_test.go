package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/taskwire/taskwire/internal/store"
)

// countingDriver counts the queries the client runs through it.
type countingDriver struct {
	dialect.Driver
	queries *atomic.Int64
}

func (d countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.queries.Add(1)
	return d.Driver.Query(ctx, query, args, v)
}

// TestWrapDriver: Open and Connect hand the opened driver to the wrapper
// once, and the client they return runs its queries through what it made.
func TestWrapDriver(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "taskwire.db")
	var wrapped int
	var queries atomic.Int64
	wrap := store.WrapDriver(func(_ *sql.DB, d dialect.Driver) dialect.Driver {
		wrapped++
		return countingDriver{Driver: d, queries: &queries}
	})
	c, err := store.Open(ctx, dsn, wrap, quiet)
	if err != nil {
		t.Fatalf("Open(%s, WrapDriver) = %v, want a client", dsn, err)
	}
	if _, err := c.Tenant.Query().Count(system); err != nil {
		t.Fatal(err)
	}
	c.Close()
	db, err := store.Connect(ctx, dsn, wrap)
	if err != nil {
		t.Fatalf("Connect(%s, WrapDriver) = %v, want a database", dsn, err)
	}
	defer db.Close()
	if _, err := db.Client.Tenant.Query().Count(system); err != nil {
		t.Fatal(err)
	}
	if wrapped != 2 || queries.Load() != 2 {
		t.Errorf("wrapper called %d times, %d queries through it; want 2 and 2", wrapped, queries.Load())
	}
}

package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store"
)

// TestAbandonedTransactionLeavesTurn: a transaction whose context ends
// before it commits is rolled back and lets the next writer in at once.
func TestAbandonedTransactionLeavesTurn(t *testing.T) {
	c, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "taskwire.db"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(system)
	tx, err := c.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Tenant.Create().SetSlug("lost").SetName("L").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	cancel() // neither Commit nor Rollback

	next, stop := context.WithTimeout(system, 3*time.Second) // far less than SQLite's busy timeout
	defer stop()
	if err := c.Tenant.Create().SetSlug("next").SetName("N").Exec(next); err != nil {
		t.Fatalf("write after an abandoned transaction: %v", err)
	}
	if n := c.Tenant.Query().Where(tenant.Slug("lost")).CountX(system); n != 0 {
		t.Errorf("the abandoned transaction's tenant was kept (%d)", n)
	}
}

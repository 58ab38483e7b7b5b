package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store"
)

// TestWritersTakeTurnsInOrder: SQLite writers of one process that wait
// for the write lock get it in the order they asked for it, rather than
// whenever their busy handler next wakes (under steady writes some
// waited seconds while later ones went first).
func TestWritersTakeTurnsInOrder(t *testing.T) {
	c, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "taskwire.db"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	began, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- store.WithTx(system, c, func(*ent.Tx) error {
			close(began)
			<-release
			return nil
		})
	}()
	<-began
	const writers = 6
	done := make(chan error, writers)
	var want []string
	for i := range writers {
		slug := fmt.Sprintf("w%d", i)
		want = append(want, slug)
		go func() {
			done <- store.WithTx(system, c, func(tx *ent.Tx) error {
				return tx.Tenant.Create().SetSlug(slug).SetName("W").Exec(system)
			})
		}()
		time.Sleep(50 * time.Millisecond) // each is waiting before the next asks
	}
	close(release)
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	for range writers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, tn := range c.Tenant.Query().Where(tenant.SlugHasPrefix("w")).Order(tenant.ByID()).AllX(system) {
		got = append(got, tn.Slug)
	}
	if !slices.Equal(got, want) {
		t.Errorf("writers got in as %v, want the order they asked: %v", got, want)
	}
}

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

package store

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/poll"
)

// TestWritersTakeTurnsInOrder: SQLite writers of one process that wait
// for the write lock get it in the order they asked for it, rather than
// whenever their busy handler next wakes (under steady writes some
// waited seconds while later ones went first). Each writer asks once the
// one before it is queued at the gate.
func TestWritersTakeTurnsInOrder(t *testing.T) {
	system := privacy.DecisionContext(context.Background(), privacy.Allow)
	drv, err := openDriver(system, "sqlite:"+filepath.Join(t.TempDir(), "taskwire.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(system, drv, options{log: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	d, err := newStmtDriver(drv, stmtCacheSize)
	if err != nil {
		t.Fatal(err)
	}
	c := ent.NewClient(ent.Driver(d))
	defer c.Close()
	began, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- WithTx(system, c, func(*ent.Tx) error {
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
			done <- WithTx(system, c, func(tx *ent.Tx) error {
				return tx.Tenant.Create().SetSlug(slug).SetName("W").Exec(system)
			})
		}()
		poll.Until(t, 5*time.Second, slug+" to queue at the gate", func() bool { return d.gate.waiting() == i+1 })
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

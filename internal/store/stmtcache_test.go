package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store"
)

// SQLite statements are prepared once and kept: answers stay right when
// more distinct statements run than are kept (each IN list of another
// length is a statement of its own), from many callers at once, inside
// and outside transactions, and a transaction rolled back leaves nothing.
func TestKeptStatements(t *testing.T) {
	c, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "taskwire.db"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const tenants = 700
	ids := make([]int, 0, tenants)
	for i := range tenants {
		tn, err := c.Tenant.Create().SetSlug(fmt.Sprintf("t%03d", i)).SetName("T").Save(system)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tn.ID)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for n := 1 + w; n <= tenants; n += 8 {
				// A statement of its own for each n.
				got, err := c.Tenant.Query().Where(tenant.IDIn(ids[:n]...)).Count(system)
				if err != nil || got != n {
					errs <- fmt.Errorf("count of %d tenants by id = %d, %v", n, got, err)
					return
				}
				if n%50 != w {
					continue
				}
				slug := fmt.Sprintf("w%d-%d", w, n)
				err = store.WithTx(system, c, func(tx *ent.Tx) error {
					if _, err := tx.Tenant.Create().SetSlug(slug).SetName("W").Save(system); err != nil {
						return err
					}
					if k, err := tx.Tenant.Query().Where(tenant.Slug(slug)).Count(system); err != nil || k != 1 {
						return fmt.Errorf("inside its transaction, %s found %d times, %v", slug, k, err)
					}
					return errRollBack
				})
				if err != errRollBack {
					errs <- err
					return
				}
				if k, err := c.Tenant.Query().Where(tenant.Slug(slug)).Count(system); err != nil || k != 0 {
					errs <- fmt.Errorf("after rollback, %s found %d times, %v", slug, k, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

var errRollBack = fmt.Errorf("roll back")

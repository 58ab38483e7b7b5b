package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// system marks bootstrap work, which the tenant privacy rule lets through.
var system = privacy.DecisionContext(context.Background(), privacy.Allow)

// quiet is the logger option of the tests' stores.
var quiet = store.Logger(storetest.Logger())

func TestOpenSQLiteKeepsData(t *testing.T) {
	ctx := context.Background()
	for _, scheme := range []string{"sqlite:", "file:"} {
		t.Run(scheme, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "nested", "dir", "taskwire.db")
			c, err := store.Open(ctx, scheme+path, quiet)
			if err != nil {
				t.Fatalf("Open(%s%s) = %v, want a client", scheme, path, err)
			}
			if _, err := c.Tenant.Create().SetSlug("acme").SetName("Acme").Save(system); err != nil {
				t.Fatalf("create tenant: %v", err)
			}
			c.Close()

			c, err = store.Open(ctx, scheme+path, quiet)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer c.Close()
			if n, err := c.Tenant.Query().Where(tenant.Slug("acme")).Count(system); n != 1 || err != nil {
				t.Errorf("tenants after reopen = %d, %v, want 1, nil", n, err)
			}
		})
	}
}

func TestOpenSQLiteSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "taskwire.db")
	c, err := store.Open(context.Background(), "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Foreign keys are enforced: a member of a tenant that does not exist.
	_, err = c.Member.Create().SetTenantID(42).SetHandle("ghost").SetDisplayName("Ghost").
		SetKind(member.KindHuman).SetRole(member.RoleMember).Save(system)
	if !ent.IsConstraintError(err) {
		t.Errorf("create member of tenant 42 = %v, want a constraint error", err)
	}

	// WAL is a property of the file: a plain connection sees it.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("PRAGMA journal_mode = %q, %v, want wal", mode, err)
	}
}

func TestOpenBadDSN(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"mysql://root@localhost/db", `unknown database scheme "mysql"`},
		{"taskwire.db", "no scheme"},
		{"sqlite:", "no path"},
		{"postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", "u:xxxxx@"},
	} {
		_, err := store.Open(context.Background(), tc.dsn, quiet)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want an error containing %q", tc.dsn, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) = %v, shows the password", tc.dsn, err)
		}
	}
}

func TestMigrationIsIdempotent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		if err := c.Schema.Create(context.Background()); err != nil {
			t.Errorf("second Schema.Create = %v, want nil", err)
		}
	})
}

func TestWithTx(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		errBoom := errors.New("boom")
		count := func() int {
			n, err := c.Tenant.Query().Count(system)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		create := func(tx *ent.Tx, slug string) {
			if _, err := tx.Tenant.Create().SetSlug(slug).SetName(slug).Save(system); err != nil {
				t.Fatal(err)
			}
		}

		err := store.WithTx(system, c, func(tx *ent.Tx) error { create(tx, "a"); return errBoom })
		if !errors.Is(err, errBoom) || count() != 0 {
			t.Errorf("WithTx(fails) = %v with %d tenants, want boom with 0", err, count())
		}

		func() {
			defer func() {
				if v := recover(); v != "panic" {
					t.Errorf("recover() = %v, want the panic to go on", v)
				}
			}()
			_ = store.WithTx(system, c, func(tx *ent.Tx) error { create(tx, "b"); panic("panic") })
		}()
		if count() != 0 {
			t.Errorf("tenants after a panicking WithTx = %d, want 0", count())
		}

		err = store.WithTx(system, c, func(tx *ent.Tx) error { create(tx, "c"); return nil })
		if err != nil || count() != 1 {
			t.Errorf("WithTx(succeeds) = %v with %d tenants, want nil with 1", err, count())
		}
	})
}

// stepFunc is a store.CommitStep made of a function.
type stepFunc func(ctx context.Context, tx *ent.Tx, commit func() error) error

func (f stepFunc) Commit(ctx context.Context, tx *ent.Tx, commit func() error) error {
	return f(ctx, tx, commit)
}

// TestWithTxCommitStep: a CommitStep in the context writes in the
// transaction it commits: what it writes commits with the write, a step
// that fails rolls the write back, and a write that fails never reaches
// the step.
func TestWithTxCommitStep(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		slugs := func() []string {
			s, err := c.Tenant.Query().Order(ent.Asc("slug")).Select("slug").Strings(system)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		create := func(tx *ent.Tx, slug string) error {
			return tx.Tenant.Create().SetSlug(slug).SetName(slug).Exec(system)
		}
		committed := 0
		step := stepFunc(func(ctx context.Context, tx *ent.Tx, commit func() error) error {
			if err := create(tx, "by-step"+fmt.Sprint(committed)); err != nil {
				return err
			}
			if err := commit(); err != nil {
				return err
			}
			committed++
			return nil
		})
		ctx := store.WithCommitStep(system, step)
		if err := store.WithTx(ctx, c, func(tx *ent.Tx) error { return create(tx, "write") }); err != nil || committed != 1 {
			t.Fatalf("WithTx with a step = %v, %d commits; want nil, 1", err, committed)
		}
		errBoom := errors.New("boom")
		if err := store.WithTx(ctx, c, func(tx *ent.Tx) error { create(tx, "failed"); return errBoom }); !errors.Is(err, errBoom) || committed != 1 {
			t.Errorf("failing WithTx with a step = %v, %d commits; want boom and no commit", err, committed)
		}
		failing := store.WithCommitStep(system, stepFunc(func(ctx context.Context, tx *ent.Tx, commit func() error) error { return errBoom }))
		if err := store.WithTx(failing, c, func(tx *ent.Tx) error { return create(tx, "unrecorded") }); !errors.Is(err, errBoom) {
			t.Errorf("WithTx with a failing step = %v, want boom", err)
		}
		if diff := cmp.Diff([]string{"by-step0", "write"}, slugs()); diff != "" {
			t.Errorf("tenants (-want +got):\n%s", diff)
		}
	})
}

// TestMigrationRequiresLogger: what a migration changes in existing rows
// is logged, so Open and Migrate refuse to run without a logger.
func TestMigrationRequiresLogger(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "taskwire.db")
	if c, err := store.Open(context.Background(), dsn); err == nil || !strings.Contains(err.Error(), "Logger is required") {
		if c != nil {
			c.Close()
		}
		t.Errorf("Open without Logger = %v, want an error saying the Logger is required", err)
	}
	if _, err := store.Migrate(context.Background(), dsn); err == nil || !strings.Contains(err.Error(), "Logger is required") {
		t.Errorf("Migrate without Logger = %v, want an error saying the Logger is required", err)
	}
}

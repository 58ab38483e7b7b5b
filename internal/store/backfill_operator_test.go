package store_test

import (
	"context"
	"testing"

	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestMigrationMarksFirstOperator: a database of schema version 4 has no
// operators; migrating it makes the first tenant's first owner with an
// account one (not a later owner, nor another tenant's), and a migration
// while an operator exists changes nothing.
func TestMigrationMarksFirstOperator(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			db, dsn := openForBackfill(t, b)
			ctx := context.Background()
			all := privacy.DecisionContext(ctx, privacy.Allow)
			owner := func(tenant int, handle string, withAccount bool) int {
				m := db.Member.Create().SetTenantID(tenant).SetHandle(handle).SetDisplayName(handle).
					SetKind(member.KindHuman).SetRole(member.RoleOwner)
				if !withAccount {
					m.SaveX(all)
					return 0
				}
				acc := db.Account.Create().SetEmail(handle + "@example.com").SaveX(all)
				m.SetAccountID(acc.ID).SaveX(all)
				return acc.ID
			}
			acme := db.Tenant.Create().SetSlug("acme").SetName("Acme").SaveX(all)
			globex := db.Tenant.Create().SetSlug("globex").SetName("Globex").SaveX(all)
			gus := owner(globex.ID, "gus", true)
			owner(acme.ID, "linkless", false) // never signed in: no account
			ann := owner(acme.ID, "ann", true)
			owner(acme.ID, "bob", true)
			setVersion(t, dsn, 4)

			if from, err := store.Migrate(ctx, dsn, quiet); err != nil || from != 4 {
				t.Fatalf("Migrate(version 4) = %d, %v; want 4, nil", from, err)
			}
			ops := db.Account.Query().Where(account.Operator(true)).IDsX(all)
			if len(ops) != 1 || ops[0] != ann {
				t.Fatalf("operators after migrating = %v, want ann's account %d only", ops, ann)
			}

			db.Account.UpdateOneID(ann).SetOperator(false).ExecX(all)
			db.Account.UpdateOneID(gus).SetOperator(true).ExecX(all)
			if _, err := store.Migrate(ctx, dsn, quiet); err != nil {
				t.Fatal(err)
			}
			if ops := db.Account.Query().Where(account.Operator(true)).IDsX(all); len(ops) != 1 || ops[0] != gus {
				t.Errorf("operators after migrating again = %v, want gus's account %d only", ops, gus)
			}
		})
	}
}

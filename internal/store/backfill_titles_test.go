package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestMigrationIndexesTitles: tasks of a database of schema version 7
// have no title tokens; migrating it gives each (more than one batch of
// them, in two tenants) the tokens a task written now gets, and
// migrating again changes nothing.
func TestMigrationIndexesTitles(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			db, dsn := openForBackfill(t, b)
			ctx := context.Background()
			all := privacy.DecisionContext(ctx, privacy.Allow)
			for _, slug := range []string{"acme", "globex"} {
				tn := db.Tenant.Create().SetSlug(slug).SetName(slug).SaveX(all)
				m := db.Member.Create().SetTenantID(tn.ID).SetHandle("ada").SetDisplayName("Ada").
					SetKind(member.KindHuman).SetRole(member.RoleOwner).SaveX(all)
				bd := db.Board.Create().SetTenantID(tn.ID).SetSlug("main").SetName("Main").SaveX(all)
				for first := 1; first <= 600; first += 100 {
					var tasks []*ent.TaskCreate
					for n := first; n < first+100; n++ {
						title := fmt.Sprintf("Fix %s bug number %d in the login page", slug, n%37)
						if n%50 == 0 {
							title = "???"
						}
						tasks = append(tasks, db.Task.Create().SetTenantID(tn.ID).SetBoardID(bd.ID).SetNumber(n).
							SetTitle(title).SetCreatedByID(m.ID))
					}
					db.Task.CreateBulk(tasks...).ExecX(all)
				}
			}
			want := titleTokens(t, db)
			if len(want) < 1200 {
				t.Fatalf("tokens written with 1,200 tasks = %d, want at least one each", len(want))
			}
			db.TaskTitleToken.Delete().ExecX(all)
			setVersion(t, dsn, 7)

			if from, err := store.Migrate(ctx, dsn, quiet); err != nil || from != 7 {
				t.Fatalf("Migrate(version 7) = %d, %v; want 7, nil", from, err)
			}
			if diff := cmp.Diff(want, titleTokens(t, db)); diff != "" {
				t.Fatalf("title tokens after migrating (-written with the tasks +backfilled):\n%s", diff)
			}
			if _, err := store.Migrate(ctx, dsn, quiet); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, titleTokens(t, db)); diff != "" {
				t.Errorf("title tokens after migrating again (-before +after):\n%s", diff)
			}
		})
	}
}

// titleTokens lists every title token, sorted.
func titleTokens(t *testing.T, db *ent.Client) []string {
	t.Helper()
	rows, err := db.TaskTitleToken.Query().All(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("tenant %d board %d task %d %q of %d", r.TenantID, r.BoardID, r.TaskID, r.Token, r.Words))
	}
	slices.Sort(out)
	return out
}

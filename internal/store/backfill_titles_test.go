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
// have no title tokens, and those of version 8 only some of their words;
// migrating either gives each task (more than one batch of them, in two
// tenants) the tokens a task written now gets, and migrating again
// changes nothing.
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
			for _, version := range []int{7, 8} {
				if version == 7 {
					db.TaskTitleToken.Delete().ExecX(all)
				} else {
					// Version 8 indexed a prefix of each title's words:
					// keep one token of each task.
					for _, r := range db.TaskTitleToken.Query().AllX(all) {
						if r.Token != "" && r.Words > 1 && r.ID%2 == 0 {
							db.TaskTitleToken.DeleteOne(r).ExecX(all)
						}
					}
				}
				setVersion(t, dsn, version)
				if from, err := store.Migrate(ctx, dsn, quiet); err != nil || from != version {
					t.Fatalf("Migrate(version %d) = %d, %v; want %d, nil", version, from, err, version)
				}
				if diff := cmp.Diff(want, titleTokens(t, db)); diff != "" {
					t.Fatalf("title tokens after migrating from version %d (-written with the tasks +backfilled):\n%s", version, diff)
				}
				if _, err := store.Migrate(ctx, dsn, quiet); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, titleTokens(t, db)); diff != "" {
					t.Errorf("title tokens after migrating again (-before +after):\n%s", diff)
				}
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

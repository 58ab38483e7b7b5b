package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestMigrationLowersAssistants: a database of schema version 1 may hold
// assistants made admins or owners; migrating it gives them the member
// role, logs each one, and leaves people and lesser assistants alone.
func TestMigrationLowersAssistants(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			db, dsn := openForBackfill(t, b)
			ctx := context.Background()
			all := privacy.DecisionContext(ctx, privacy.Allow)
			tn := db.Tenant.Create().SetSlug("acme").SetName("Acme").SaveX(all)
			add := func(handle string, kind member.Kind, role member.Role) int {
				return db.Member.Create().SetTenantID(tn.ID).SetHandle(handle).SetDisplayName(handle).
					SetKind(kind).SetRole(role).SaveX(all).ID
			}
			ids := map[string]int{
				"ann": add("ann", member.KindHuman, member.RoleAdmin),
				"big": add("big", member.KindAssistant, member.RoleOwner),
				"bot": add("bot", member.KindAssistant, member.RoleAdmin),
				"low": add("low", member.KindAssistant, member.RoleViewer),
			}
			setVersion(t, dsn, 1)

			var logs bytes.Buffer
			from, err := store.Migrate(ctx, dsn, store.Logger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil || from != 1 {
				t.Fatalf("Migrate(version 1) = %d, %v; want 1, nil", from, err)
			}
			want := map[string]member.Role{"ann": member.RoleAdmin, "big": member.RoleMember, "bot": member.RoleMember, "low": member.RoleViewer}
			for handle, id := range ids {
				if got := db.Member.GetX(all, id).Role; got != want[handle] {
					t.Errorf("after migrating, %s is %s, want %s", handle, got, want[handle])
				}
			}
			for _, line := range []string{"handle=big was=owner", "handle=bot was=admin"} {
				if !strings.Contains(logs.String(), line) {
					t.Errorf("the migration's log lacks %q:\n%s", line, logs.String())
				}
			}
			if strings.Contains(logs.String(), "handle=ann") || strings.Contains(logs.String(), "handle=low") {
				t.Errorf("the migration logged members it did not change:\n%s", logs.String())
			}
		})
	}
}

// setVersion records version v in the database at dsn, as an older build's
// migration would have left it.
func setVersion(t *testing.T, dsn string, v int) {
	t.Helper()
	driver, name := "pgx", dsn
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		driver, name = "sqlite", path
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE taskwire_schema SET version = $1`, v); err != nil {
		t.Fatal(err)
	}
}

// openForBackfill opens a new, migrated database of backend b, closed at
// the test's end, and returns it with its DSN.
func openForBackfill(t *testing.T, b storetest.Backend) (*ent.Client, string) {
	t.Helper()
	dsn := storetest.DSN(t, b)
	db, err := store.Open(context.Background(), dsn, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

package dbcopy_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/dbcopy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestCopyNeverReusesIDs: the id of a row deleted before the copy is not
// handed out again after it, as SQLite would not have either.
func TestCopyNeverReusesIDs(t *testing.T) {
	to := storetest.DSN(t, storetest.Postgres)
	path := filepath.Join(t.TempDir(), "taskwire.db")
	client, err := store.Open(context.Background(), "sqlite:"+path, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	client.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`INSERT INTO tenants (slug, name, created_at) VALUES ('a', 'A', '2026-12-05 08:00:00'), ('b', 'B', '2026-12-05 08:00:00'), ('c', 'C', '2026-12-05 08:00:00')`,
		`DELETE FROM tenants WHERE slug = 'c'`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ctx := context.Background()
	if _, err := dbcopy.Copy(ctx, dbcopy.Config{From: "sqlite:" + path, To: to, Log: storetest.Logger()}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO tenants (slug, name, created_at) VALUES ('d', 'D', now()) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id != 4 {
		t.Errorf("the tenant added after the copy got id %d, want 4: tenant 3 was deleted before it", id)
	}
}

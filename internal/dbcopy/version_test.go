package dbcopy_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/dbcopy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestCopyRefusesOtherVersions: a source at another schema version than
// this build's is refused with what to do, before the target is touched
// (not even migrated).
func TestCopyRefusesOtherVersions(t *testing.T) {
	to := storetest.DSN(t, storetest.Postgres)
	for _, c := range []struct {
		version int
		want    string
	}{
		{store.SchemaVersion - 1, "starting this version's taskwire serve on its data directory once"},
		{store.SchemaVersion + 1, "newer than this build's"},
	} {
		path := filepath.Join(t.TempDir(), "taskwire.db")
		client, err := store.Open(context.Background(), "sqlite:"+path, store.Logger(storetest.Logger()))
		if err != nil {
			t.Fatal(err)
		}
		client.Close()
		setVersion(t, path, c.version)
		_, err = dbcopy.Copy(context.Background(), dbcopy.Config{From: filepath.Dir(path), To: to, Log: storetest.Logger()})
		if err == nil || !strings.Contains(err.Error(), "schema version "+strconv.Itoa(c.version)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Copy from version %d = %v, want a refusal saying %q", c.version, err, c.want)
		}
	}
	checkUntouched(t, to)
}

func setVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE `+store.VersionTable+` SET version = ?`, v); err != nil {
		t.Fatal(err)
	}
}

// checkUntouched: dsn has none of Taskwire's tables.
func checkUntouched(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the target holds %d tables after a refused copy, want none", n)
	}
}

// TestCopyNamesItsSource: a source that is not serve's SQLite database is
// refused with a sentence naming what to pass.
func TestCopyNamesItsSource(t *testing.T) {
	for _, from := range []string{"", filepath.Join(t.TempDir(), "missing.db"), t.TempDir(), "postgres://db/taskwire"} {
		_, err := dbcopy.Copy(context.Background(), dbcopy.Config{From: from, To: "postgres://127.0.0.1:1/none", Log: storetest.Logger()})
		if err == nil || !strings.Contains(err.Error(), "data dir") {
			t.Errorf("Copy from %q = %v, want a sentence naming serve's database or data directory", from, err)
		}
	}
}

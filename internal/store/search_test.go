package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// newTask adds a task titled title to c, with the tenant, member and board
// it needs.
func newTask(t *testing.T, c *ent.Client, title string) *ent.Task {
	t.Helper()
	tn := c.Tenant.Create().SetSlug("t-" + strings.ReplaceAll(strings.ToLower(title), " ", "-")).SetName(title).SaveX(system)
	m := c.Member.Create().SetTenantID(tn.ID).SetHandle("alice").SetDisplayName("Alice").
		SetKind(member.KindHuman).SetRole(member.RoleOwner).SaveX(system)
	b := c.Board.Create().SetTenantID(tn.ID).SetSlug("main").SetName("Main").SaveX(system)
	return c.Task.Create().SetTenantID(tn.ID).SetBoardID(b.ID).SetNumber(1).SetTitle(title).
		SetCreatedByID(m.ID).SaveX(system)
}

// matches returns the ids of the tasks SQLite's stemmed index finds for
// query.
func matches(t *testing.T, db *sql.DB, query string) []int {
	t.Helper()
	return matchesIn(t, db, store.SearchTable, query)
}

// matchesIn returns the ids of the tasks SQLite's index table finds for
// query.
func matchesIn(t *testing.T, db *sql.DB, table, query string) []int {
	t.Helper()
	rows, err := db.Query("SELECT rowid FROM "+table+" WHERE "+table+" MATCH ? ORDER BY rowid", query)
	if err != nil {
		t.Fatalf("MATCH %q: %v", query, err)
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestSQLiteSearchIndex shows that Open indexes tasks written before the
// index existed, and mends an index whose triggers are gone, as a
// migration that rebuilds the tasks table leaves it.
func TestSQLiteSearchIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "taskwire.db")
	c, err := store.Open(ctx, "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	indexed := newTask(t, c, "Pelican migration")
	for _, s := range []string{"DROP TABLE task_search", "DROP TRIGGER task_search_insert", "DROP TRIGGER task_search_update"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	unindexed := newTask(t, c, "Pelicans nesting")
	c.Close()

	c, err = store.Open(ctx, "sqlite:"+path, quiet)
	if err != nil {
		t.Fatalf("second Open = %v", err)
	}
	if got := matches(t, db, "pelican"); len(got) != 2 || got[0] != indexed.ID || got[1] != unindexed.ID {
		t.Errorf("after the second Open, MATCH pelican = %v, want %d and %d (porter stems pelicans)", got, indexed.ID, unindexed.ID)
	}
	c.Task.UpdateOne(unindexed).SetTitle("Herons nesting").ExecX(system)
	c.Close()

	c, err = store.Open(ctx, "sqlite:"+path, quiet) // finds everything in place
	if err != nil {
		t.Fatalf("third Open = %v", err)
	}
	defer c.Close()
	if got := matches(t, db, "heron"); len(got) != 1 || got[0] != unindexed.ID {
		t.Errorf("MATCH heron after a rename = %v, want %d: the update trigger is back", got, unindexed.ID)
	}
	if got := matches(t, db, "pelican OR nesting"); len(got) != 2 {
		t.Errorf("MATCH pelican OR nesting after a rename = %v, want each task once", got)
	}
}

// TestSQLiteTrigramIndex shows that Open indexes tasks written before the
// trigram index existed (an upgrade) by any part of their text, and keeps
// it in step with renames.
func TestSQLiteTrigramIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "taskwire.db")
	c, err := store.Open(ctx, "sqlite:"+path, quiet)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"DROP TABLE task_trigram", "DROP TRIGGER task_trigram_insert", "DROP TRIGGER task_trigram_delete", "DROP TRIGGER task_trigram_update"} {
		if _, err := db.Exec(s); err != nil { // as before the upgrade
			t.Fatalf("%s: %v", s, err)
		}
	}
	older := newTask(t, c, "修复登录超时问题")
	c.Close()

	c, err = store.Open(ctx, "sqlite:"+path, quiet)
	if err != nil {
		t.Fatalf("second Open = %v", err)
	}
	defer c.Close()
	if got := matchesIn(t, db, store.TrigramTable, "登录超时"); len(got) != 1 || got[0] != older.ID {
		t.Errorf("after the second Open, trigram MATCH 登录超时 = %v, want %d", got, older.ID)
	}
	if got := matches(t, db, "登录超时"); len(got) != 0 {
		t.Errorf("stemmed MATCH 登录超时 = %v, want nothing (unicode61 holds the phrase as one word): else the trigram index is not needed", got)
	}
	newer := newTask(t, c, "ログインのタイムアウト")
	c.Task.UpdateOne(older).SetTitle("更新数据库架构").ExecX(system)
	if got := matchesIn(t, db, store.TrigramTable, "タイムアウト"); len(got) != 1 || got[0] != newer.ID {
		t.Errorf("trigram MATCH タイムアウト = %v, want %d", got, newer.ID)
	}
	if got := matchesIn(t, db, store.TrigramTable, "登录超时"); len(got) != 0 {
		t.Errorf("trigram MATCH 登录超时 after a rename = %v, want nothing", got)
	}
}

// TestPostgresSearchIndex shows the GIN indexes are there after Open, and
// that a query with the expression of each can use it (a word of two
// characters only by reading all of the index, so PostgreSQL picks a scan
// of the rows unless told not to, as here); the index of schema version 9,
// which the stored search_vector replaced, is gone.
func TestPostgresSearchIndex(t *testing.T) {
	dsn := storetest.DSN(t, storetest.Postgres)
	ctx := context.Background()
	for range 2 {
		c, err := store.Open(ctx, dsn, quiet)
		if err != nil {
			t.Fatalf("Open = %v", err)
		}
		c.Close()
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	var old bool
	if err := conn.QueryRowContext(ctx, `SELECT to_regclass('task_search_idx') IS NOT NULL`).Scan(&old); err != nil || old {
		t.Errorf("index task_search_idx still there = %v, %v; want it dropped", old, err)
	}
	for _, tc := range []struct{ where, index string }{
		{`"tasks"."search_vector" @@ plainto_tsquery('english', 'pelican')`, "task_search_vector_idx"},
		{`("tasks"."title" || ' ' || "tasks"."note") LIKE '%登录超时%'`, "task_trigram_idx"},
		{`("tasks"."title" || ' ' || "tasks"."note") LIKE '%修复%'`, "task_trigram_idx"},
		{`("tasks"."title" || ' ' || "tasks"."note") ILIKE '%login%'`, "task_trigram_idx"},
	} {
		if plan := explain(t, conn, "SELECT id FROM tasks WHERE "+tc.where); !strings.Contains(plan, tc.index) {
			t.Errorf("plan of a search WHERE %s =\n%s\nwant it to use %s", tc.where, plan, tc.index)
		}
	}
}

// explain returns PostgreSQL's plan of query.
func explain(t *testing.T, conn *sql.Conn, query string) string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "EXPLAIN "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}

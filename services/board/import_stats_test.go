package board_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// TestImportFreshensPostgresStatistics: after imports have grown the tasks
// table, PostgreSQL's planner knows how many tasks there are, without
// waiting for autovacuum, so the next tasks_list and tasks_search are
// planned for the board as it is (with the statistics of an empty table,
// they read every task of the tenant). A small import after that leaves
// the statistics alone. The title index's statistics are freshened with
// them, or the near-duplicate check reads a whole board's entries.
func TestImportFreshensPostgresStatistics(t *testing.T) {
	dsn := storetest.DSN(t, storetest.Postgres)
	c, err := store.Open(context.Background(), dsn, store.Logger(storetest.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rows := func(table string) float64 {
		t.Helper()
		var n float64
		if err := db.QueryRow(`SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	counted := func() float64 { return rows("tasks") }
	e := newEnv(t, c)
	imp := func(from, n int) {
		t.Helper()
		var drafts []*taskwirev1.TaskDraft
		for i := from; i < from+n; i++ {
			drafts = append(drafts, &taskwirev1.TaskDraft{Title: fmt.Sprintf("Imported task %d", i), Note: "From the old tracker."})
		}
		if _, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: drafts}); err != nil {
			t.Fatalf("ImportTasks(%d drafts) = %v", n, err)
		}
	}
	const imports = 10
	for i := range imports {
		imp(i*board.MaxImport, board.MaxImport)
	}
	// The statistics may lag by a fifth and a few pages (store.FreshenStats).
	if got, want := counted(), 0.7*imports*board.MaxImport; got < want {
		t.Fatalf("after importing %d tasks PostgreSQL's statistics count %.0f tasks, want %.0f or more", imports*board.MaxImport, got, want)
	}
	// Each title ("Imported task N") has three words, each indexed.
	if got, want := rows("task_title_tokens"), 0.7*3*imports*board.MaxImport; got < want {
		t.Fatalf("after importing %d tasks PostgreSQL's statistics count %.0f title words, want %.0f or more", imports*board.MaxImport, got, want)
	}
	before := counted()
	imp(imports*board.MaxImport, 3)
	if got := counted(); got != before {
		t.Errorf("after importing 3 more tasks the statistics count %.0f tasks, want them left at %.0f", got, before)
	}
}

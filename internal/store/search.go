package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"modernc.org/sqlite"
)

// Full-text search over the titles and notes of tasks, which ent cannot
// declare: Open sets it up after the migration, on every start, and the
// board's search queries name these.
const (
	// SearchTable is SQLite's FTS5 index of the tasks table (external
	// content: it stores only the index, keyed by the task's id).
	SearchTable = "task_search"
	// SearchConfig is the PostgreSQL text search configuration.
	SearchConfig = "english"
	// LowerFunc is an SQLite function that lowercases all of Unicode, as
	// PostgreSQL's lower() does; SQLite's own lower() leaves non-ASCII
	// letters as they are.
	LowerFunc = "taskwire_lower"
)

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(LowerFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		}
		return args[0], nil
	})
}

// sqliteSearch creates the FTS5 table and the triggers that keep it in step
// with the tasks table. Each statement is idempotent; when the table or a
// trigger was missing (a new database, an upgrade, or a migration that
// rebuilt the tasks table and so dropped its triggers) the index is rebuilt
// from the tasks, all in one transaction.
var sqliteSearch = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS task_search USING fts5(title, note, content='tasks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
	`CREATE TRIGGER IF NOT EXISTS task_search_insert AFTER INSERT ON tasks BEGIN
		INSERT INTO task_search(rowid, title, note) VALUES (new.id, new.title, new.note);
	END`,
	`CREATE TRIGGER IF NOT EXISTS task_search_delete AFTER DELETE ON tasks BEGIN
		INSERT INTO task_search(task_search, rowid, title, note) VALUES ('delete', old.id, old.title, old.note);
	END`,
	`CREATE TRIGGER IF NOT EXISTS task_search_update AFTER UPDATE OF title, note ON tasks BEGIN
		INSERT INTO task_search(task_search, rowid, title, note) VALUES ('delete', old.id, old.title, old.note);
		INSERT INTO task_search(rowid, title, note) VALUES (new.id, new.title, new.note);
	END`,
}

// searchIndex is PostgreSQL's GIN index of the tasks' text.
const searchIndex = "task_search_idx"

// sqliteSearchObjects is how many of the table and triggers above exist
// when all is set up.
const sqliteSearchObjects = 4

// postgresSearch creates the GIN index that tasks_search queries use: its
// expression must stay the same as theirs. The advisory lock keeps two
// workers starting at once from racing on it.
var postgresSearch = []string{
	`SELECT pg_advisory_xact_lock(7346251)`,
	`CREATE INDEX IF NOT EXISTS ` + searchIndex + ` ON tasks USING GIN (to_tsvector('` + SearchConfig + `', title || ' ' || note))`,
}

// setupSearch prepares full-text search on drv's database.
func setupSearch(ctx context.Context, drv *entsql.Driver) error {
	tx, err := drv.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: set up search: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	stmts := postgresSearch
	if drv.Dialect() == dialect.SQLite {
		stmts = sqliteSearch
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('task_search', 'task_search_insert', 'task_search_delete', 'task_search_update')`).Scan(&n)
		if err != nil {
			return fmt.Errorf("store: set up search: %w", err)
		}
		if n < sqliteSearchObjects {
			stmts = append(stmts[:len(stmts):len(stmts)], `INSERT INTO task_search(task_search) VALUES ('rebuild')`)
		}
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("store: set up search: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: set up search: %w", err)
	}
	return nil
}

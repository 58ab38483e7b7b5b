package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"modernc.org/sqlite"
)

// Full-text search over the titles and notes of tasks, which ent cannot
// declare: Open sets it up after the migration, on every start, and the
// board's search queries name these. Two indexes sit side by side: a
// stemmed one for languages that put spaces between words, and a trigram
// one that finds any part of a phrase, for Chinese, Japanese and Korean.
const (
	// SearchTable is SQLite's stemmed FTS5 index of the tasks table
	// (external content: it stores only the index, keyed by the task's id).
	SearchTable = "task_search"
	// TrigramTable is SQLite's FTS5 trigram index of the same text: it
	// finds any run of three or more characters, wherever it stands.
	TrigramTable = "task_trigram"
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

// setupSearch prepares full-text search on drv's database, in one
// transaction. It logs to log what it could not set up but search can do
// without (PostgreSQL's pg_trgm, when the role may not create it).
func setupSearch(ctx context.Context, drv *entsql.Driver, log *slog.Logger) error {
	tx, err := drv.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: set up search: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	if drv.Dialect() == dialect.SQLite {
		err = setupSQLiteSearch(ctx, tx)
	} else {
		err = setupPostgresSearch(ctx, tx, log)
	}
	if err != nil {
		return fmt.Errorf("store: set up search: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: set up search: %w", err)
	}
	return nil
}

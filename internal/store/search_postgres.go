package store

import (
	"context"
	"database/sql"
	"log/slog"
)

// The GIN indexes of PostgreSQL's search: their expressions must stay the
// same as the board's queries.
const (
	// SearchVector is the tasks' column of stemmed words, the title's
	// weighted A and the note's B: a generated column, so PostgreSQL
	// computes it once per write rather than once per matching task for
	// every search that ranks them.
	SearchVector = "search_vector"
	// searchIndex indexes SearchVector.
	searchIndex = "task_search_vector_idx"
	// oldSearchIndex indexed the same words as an expression, before
	// SearchVector (schema version 9 and older).
	oldSearchIndex = "task_search_idx"
	// trigramIndex indexes the trigrams (pg_trgm) of the same text, so a
	// LIKE or ILIKE '%…%' on it, which Chinese, Japanese and Korean queries use,
	// reads the index instead of every task.
	trigramIndex = "task_trigram_idx"
	// searchText is the text both indexes hold, as the board's queries
	// must spell it for PostgreSQL to use them.
	searchText = `title || ' ' || note`
)

// setupPostgresSearch creates the search column and the indexes. Adding
// the column to an existing database rewrites the tasks table once, under
// its lock, during the migration. The advisory lock keeps two workers
// starting at once from racing on them. The trigram index needs the pg_trgm
// extension: when the role may not create it, search still works, reading
// the tenant's tasks for those languages, and the log says what to do.
func setupPostgresSearch(ctx context.Context, tx *sql.Tx, log *slog.Logger) error {
	for _, s := range []string{
		`SELECT pg_advisory_xact_lock(7346251)`,
		`ALTER TABLE tasks ADD COLUMN IF NOT EXISTS ` + SearchVector + ` tsvector GENERATED ALWAYS AS (` +
			`setweight(to_tsvector('` + SearchConfig + `', title), 'A') || setweight(to_tsvector('` + SearchConfig + `', note), 'B')) STORED`,
		`CREATE INDEX IF NOT EXISTS ` + searchIndex + ` ON tasks USING GIN (` + SearchVector + `)`,
		`DROP INDEX IF EXISTS ` + oldSearchIndex,
		`SAVEPOINT trigram`,
	} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm`); err != nil {
		log.WarnContext(ctx, "search: pg_trgm could not be created, so searches in Chinese, Japanese and Korean read every task of a tenant: have a role with CREATE on this database (pg_trgm is a trusted extension) or a superuser run CREATE EXTENSION pg_trgm, then run the migration again", "error", err)
		_, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT trigram`)
		return err
	}
	// The extension may live in another schema than the tables (it is
	// created once per database), so its operator class is named in full.
	var schema string
	err := tx.QueryRowContext(ctx, `SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`).Scan(&schema)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS `+trigramIndex+` ON tasks USING GIN ((`+searchText+`) `+schema+`.gin_trgm_ops)`)
	return err
}

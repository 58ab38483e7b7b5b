package store

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
)

// PostgreSQL plans every query from the statistics ANALYZE last took of a
// table, and autovacuum takes them only some time (a minute by default)
// after a table has changed by a tenth. Right after an import into a new or
// small tasks table, the planner still believes a tenant has a few dozen
// tasks: it sorts all of them for a page of tasks_list and runs the search
// on each one instead of using the search index, ten to twenty times slower
// at 20,000 tasks than with fresh statistics. A bulk write therefore takes
// them itself once the table has grown enough for the old ones to mislead.
const (
	// growthDivisor: statistics are stale once the table has grown by more
	// than 1/growthDivisor of its size when they were taken.
	growthDivisor = 5
	// minStalePages: a table that grew by fewer pages (8 KB each, some 35
	// tasks) keeps its statistics, so small imports do not analyze at all.
	minStalePages = 8
)

// FreshenStats runs ANALYZE on table, and merges the pending rows of its
// GIN indexes, when PostgreSQL's statistics of it were taken at a size more
// than a fifth smaller than its size now, or never. ANALYZE reads a bounded sample (30,000 rows by default), so it
// costs tens of milliseconds whatever the size of the table. On SQLite,
// whose planner does not depend on such statistics for these queries, it
// does nothing. Call it after a bulk write has committed, not inside it:
// ANALYZE sees only committed rows.
func FreshenStats(ctx context.Context, client *ent.Client, table string) error {
	drv := client.Driver()
	if drv.Dialect() != dialect.Postgres {
		return nil
	}
	var rows entsql.Rows
	err := drv.Query(ctx, `SELECT c.relpages, pg_relation_size(c.oid) / current_setting('block_size')::int
		FROM pg_class c WHERE c.oid = to_regclass($1)`, []any{table}, &rows)
	if err != nil {
		return fmt.Errorf("store: read the size of %s: %w", table, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: read the size of %s: %w", table, err)
		}
		return fmt.Errorf("store: table %s does not exist: run the migration", table)
	}
	var analyzed, now int64
	if err := rows.Scan(&analyzed, &now); err != nil {
		return fmt.Errorf("store: read the size of %s: %w", table, err)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if now <= analyzed+analyzed/growthDivisor+minStalePages {
		return nil
	}
	// table is one of the schema's own names, never a caller's text.
	if err := drv.Exec(ctx, "ANALYZE "+table, []any{}, nil); err != nil {
		return fmt.Errorf("store: analyze %s: %w", table, err)
	}
	// A GIN index keeps new rows in a pending list, which every search
	// reads through until autovacuum merges it into the index; autovacuum's
	// analyze would, a manual ANALYZE does not, so it is merged here too.
	err = drv.Exec(ctx, `SELECT gin_clean_pending_list(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = to_regclass($1) AND a.amname = 'gin'`, []any{table}, nil)
	if err != nil {
		return fmt.Errorf("store: merge the pending rows of %s's search indexes: %w", table, err)
	}
	return nil
}

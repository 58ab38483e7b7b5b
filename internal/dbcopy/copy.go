package dbcopy

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql/schema"
	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/ent/migrate"
)

// copyAll copies every table, parents first, in one transaction of the
// target: all of it lands or none does. Each table goes in with one COPY,
// which streams the rows as they are read from the source, so no table is
// ever held in memory, and PostgreSQL checks its foreign keys once, at
// the end of the table.
func copyAll(ctx context.Context, src *source, dst *target, log *slog.Logger) error {
	tables, err := inOrder(migrate.Tables)
	if err != nil {
		return err
	}
	lastIDs, err := src.lastIDs(ctx)
	if err != nil {
		return fmt.Errorf("dbcopy: read %s's id counters: %w", src.Path, err)
	}
	tx, err := dst.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("dbcopy: write the target: %w", err)
	}
	defer tx.Rollback(ctx) // a no-op after Commit
	for _, tb := range tables {
		start := time.Now()
		n, err := copyTable(ctx, src.tx, tx, tb)
		if err != nil {
			return fmt.Errorf("dbcopy: copy %s: %w (nothing was written)", tb.Name, err)
		}
		if err := resetIDs(ctx, tx, tb, lastIDs[tb.Name]); err != nil {
			return fmt.Errorf("dbcopy: set the next id of %s: %w (nothing was written)", tb.Name, err)
		}
		log.InfoContext(ctx, "copied", "table", tb.Name, "rows", n, "took", time.Since(start).Round(time.Millisecond))
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("dbcopy: commit the copy: %w (nothing was written)", err)
	}
	return nil
}

// copyTable streams tb's rows from the source into the target.
func copyTable(ctx context.Context, from *sql.Tx, to pgx.Tx, tb *schema.Table) (int64, error) {
	rows, err := from.QueryContext(ctx, selectAll(tb, sqliteName))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	names := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		names[i] = c.Name
	}
	return to.CopyFrom(ctx, pgx.Identifier{tb.Name}, names, newRowSource(rows, tb.Columns))
}

// selectAll is the query of every row of tb, its columns as ent declares
// them, in primary key order; quote writes a column's name for the
// database read.
func selectAll(tb *schema.Table, quote func(*schema.Column) string) string {
	cols := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		cols[i] = quote(c)
	}
	keys := make([]string, len(tb.PrimaryKey))
	for i, c := range tb.PrimaryKey {
		keys[i] = `"` + c.Name + `"`
	}
	return `SELECT ` + strings.Join(cols, ", ") + ` FROM "` + tb.Name + `" ORDER BY ` + strings.Join(keys, ", ")
}

func sqliteName(c *schema.Column) string { return `"` + c.Name + `"` }

// resetIDs sets tb's identity sequence past its highest id, and past the
// highest SQLite handed out (last), since the copy wrote ids of its own
// and PostgreSQL would hand out 1 next.
func resetIDs(ctx context.Context, tx pgx.Tx, tb *schema.Table, last int64) error {
	if len(tb.PrimaryKey) != 1 || !tb.PrimaryKey[0].Increment {
		return nil
	}
	id := tb.PrimaryKey[0].Name
	_, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), GREATEST((SELECT max(`+pgx.Identifier{id}.Sanitize()+`) FROM `+pgx.Identifier{tb.Name}.Sanitize()+`), $3::bigint, 0) + 1, false)`,
		tb.Name, id, last)
	return err
}

// rowSource hands the rows of a query to pgx's COPY one at a time, each
// value converted to its column's type.
type rowSource struct {
	rows *sql.Rows
	cols []*schema.Column
	raw  []any
	ptrs []any
	vals []any
	err  error
}

func newRowSource(rows *sql.Rows, cols []*schema.Column) *rowSource {
	s := &rowSource{rows: rows, cols: cols, raw: make([]any, len(cols)), ptrs: make([]any, len(cols)), vals: make([]any, len(cols))}
	for i := range s.raw {
		s.ptrs[i] = &s.raw[i]
	}
	return s
}

func (s *rowSource) Next() bool {
	if s.err != nil || !s.rows.Next() {
		return false
	}
	if s.err = s.rows.Scan(s.ptrs...); s.err != nil {
		return false
	}
	for i, c := range s.cols {
		if s.vals[i], s.err = convert(c, s.raw[i]); s.err != nil {
			return false
		}
	}
	return true
}

func (s *rowSource) Values() ([]any, error) { return s.vals, nil }

func (s *rowSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}

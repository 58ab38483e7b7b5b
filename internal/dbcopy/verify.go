package dbcopy

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"
	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/ent/migrate"
)

// compare sums every table in the source's snapshot and in the target.
func compare(ctx context.Context, src *source, dst *target) (*Report, error) {
	r := &Report{Source: src.Path}
	for _, tb := range migrate.Tables {
		from, err := sumSQLite(ctx, src.tx, tb)
		if err != nil {
			return nil, fmt.Errorf("dbcopy: check %s in %s: %w", tb.Name, src.Path, err)
		}
		to, err := sumPostgres(ctx, dst.conn, tb)
		if err != nil {
			return nil, fmt.Errorf("dbcopy: check %s in the target: %w", tb.Name, err)
		}
		r.Tables = append(r.Tables, TableCheck{Table: tb.Name, Source: from, Target: to})
	}
	return r, nil
}

func sumSQLite(ctx context.Context, tx *sql.Tx, tb *schema.Table) (Sum, error) {
	rows, err := tx.QueryContext(ctx, selectAll(tb, sqliteName))
	if err != nil {
		return Sum{}, err
	}
	defer rows.Close()
	s := newSummer(tb.Columns)
	raw, ptrs := make([]any, len(tb.Columns)), make([]any, len(tb.Columns))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return Sum{}, err
		}
		if err := s.add(raw); err != nil {
			return Sum{}, err
		}
	}
	return s.sum(), rows.Err()
}

func sumPostgres(ctx context.Context, conn *pgx.Conn, tb *schema.Table) (Sum, error) {
	rows, err := conn.Query(ctx, selectAll(tb, postgresName))
	if err != nil {
		return Sum{}, err
	}
	defer rows.Close()
	s := newSummer(tb.Columns)
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return Sum{}, err
		}
		if err := s.add(vals); err != nil {
			return Sum{}, err
		}
	}
	return s.sum(), rows.Err()
}

// postgresName reads JSON as its text: pgx would decode it, and a JSON
// null would read as SQL NULL.
func postgresName(c *schema.Column) string {
	if c.Type == field.TypeJSON {
		return `"` + c.Name + `"::text`
	}
	return `"` + c.Name + `"`
}

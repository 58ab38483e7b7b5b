package dbcopy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/ent/migrate"
)

// target is the PostgreSQL database the copy writes to, on a connection
// of its own: COPY needs pgx's own connection, not database/sql's.
type target struct {
	conn *pgx.Conn
}

// openTarget connects to the PostgreSQL database to.
func openTarget(ctx context.Context, to string) (*target, error) {
	scheme, _, _ := strings.Cut(to, "://")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
	default:
		return nil, errors.New("dbcopy: name the PostgreSQL database to copy to: postgres://user@host/db (an empty database, e.g. one made with createdb)")
	}
	conn, err := pgx.Connect(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("dbcopy: connect to the target: %w", err)
	}
	return &target{conn: conn}, nil
}

// refuseRows fails when any of Taskwire's tables in the target holds a
// row: the copy writes the source's ids, and would mix two deployments'
// data, or fail half-way, in one that is not empty. It writes nothing.
func (t *target) refuseRows(ctx context.Context) error {
	var full []string
	for _, tb := range migrate.Tables {
		var exists bool
		if err := t.conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, tb.Name).Scan(&exists); err != nil {
			return fmt.Errorf("dbcopy: read the target: %w", err)
		}
		if !exists {
			continue
		}
		var rows bool
		if err := t.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+pgx.Identifier{tb.Name}.Sanitize()+`)`).Scan(&rows); err != nil {
			return fmt.Errorf("dbcopy: read the target's %s: %w", tb.Name, err)
		}
		if rows {
			full = append(full, tb.Name)
		}
	}
	if len(full) > 0 {
		return fmt.Errorf("dbcopy: the target database already holds rows (in %s), and the copy writes only into an empty one: nothing was written; copy into a new database (createdb), or drop this one's tables if what they hold may go", strings.Join(full, ", "))
	}
	return nil
}

func (t *target) close() { t.conn.Close(context.Background()) }

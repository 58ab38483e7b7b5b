package store

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	lru "github.com/hashicorp/golang-lru/v2"
)

// stmtCacheSize bounds the statements kept prepared: ent writes a few
// dozen distinct statements for Taskwire's calls, and a few more for
// each length of an IN list it loads edges with.
const stmtCacheSize = 512

// stmtDriver runs every statement as a prepared statement kept by its
// text, so that a statement is parsed once per connection instead of on
// every call. SQLite's driver prepares each statement it is handed and
// throws it away afterwards: parsing was a quarter of the CPU time of a
// small call. (PostgreSQL's driver keeps its own statement cache per
// connection, so Taskwire uses this for SQLite only.)
//
// database/sql does the bookkeeping: a *sql.Stmt prepares itself on each
// connection it is used on and is reused there, inside transactions too
// (sql.Tx.StmtContext), and its Close waits for rows still being read.
type stmtDriver struct {
	*entsql.Driver
	stmts *lru.Cache[string, *sql.Stmt]
}

func newStmtDriver(d *entsql.Driver) (*stmtDriver, error) {
	// An evicted statement is closed in the background: Close waits for
	// the rows of any query still reading from it, which may be the
	// caller's own.
	stmts, err := lru.NewWithEvict(stmtCacheSize, func(_ string, s *sql.Stmt) { go s.Close() })
	if err != nil {
		return nil, fmt.Errorf("store: statement cache: %w", err)
	}
	return &stmtDriver{Driver: d, stmts: stmts}, nil
}

// stmt is query's prepared statement, prepared now if it is not kept.
func (d *stmtDriver) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := d.stmts.Get(query); ok {
		return s, nil
	}
	s, err := d.DB().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	// Two calls may have prepared it at once: the first one kept wins.
	if prev, found, _ := d.stmts.PeekOrAdd(query, s); found {
		go s.Close()
		return prev, nil
	}
	return s, nil
}

// Exec implements dialect.ExecQuerier.
func (d *stmtDriver) Exec(ctx context.Context, query string, args, v any) error {
	return execStmt(ctx, query, args, v, d.stmt)
}

// Query implements dialect.ExecQuerier.
func (d *stmtDriver) Query(ctx context.Context, query string, args, v any) error {
	return queryStmt(ctx, query, args, v, d.stmt)
}

// Tx implements dialect.Driver.
func (d *stmtDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

// BeginTx starts a transaction whose statements are the kept ones, bound
// to the transaction's connection; ent's Client.BeginTx calls it.
func (d *stmtDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	tx, err := d.DB().BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &stmtTx{Tx: tx, d: d}, nil
}

// stmtTx is a transaction of a stmtDriver.
type stmtTx struct {
	*sql.Tx
	d *stmtDriver
}

// stmt is query's kept statement bound to the transaction; the
// transaction closes it when it ends.
func (t *stmtTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s, err := t.d.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return t.Tx.StmtContext(ctx, s), nil
}

func (t *stmtTx) Exec(ctx context.Context, query string, args, v any) error {
	return execStmt(ctx, query, args, v, t.stmt)
}

func (t *stmtTx) Query(ctx context.Context, query string, args, v any) error {
	return queryStmt(ctx, query, args, v, t.stmt)
}

// preparer is the kept statement of a query, for a driver or a transaction.
type preparer func(ctx context.Context, query string) (*sql.Stmt, error)

// prepared is query's statement and its arguments, as ent hands them over.
func (p preparer) prepared(ctx context.Context, query string, args any) (*sql.Stmt, []any, error) {
	argv, ok := args.([]any)
	if !ok {
		return nil, nil, fmt.Errorf("store: invalid arguments %T, want []any", args)
	}
	s, err := p(ctx, query)
	return s, argv, err
}

// execStmt is entsql.Conn's Exec over a prepared statement.
func execStmt(ctx context.Context, query string, args, v any, p preparer) error {
	s, argv, err := p.prepared(ctx, query, args)
	if err != nil {
		return err
	}
	res, err := s.ExecContext(ctx, argv...)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
	case *sql.Result:
		*v = res
	default:
		return fmt.Errorf("store: invalid result %T, want *sql.Result", v)
	}
	return nil
}

// queryStmt is entsql.Conn's Query over a prepared statement.
func queryStmt(ctx context.Context, query string, args, v any, p preparer) error {
	rows, ok := v.(*entsql.Rows)
	if !ok {
		return fmt.Errorf("store: invalid rows %T, want *sql.Rows", v)
	}
	s, argv, err := p.prepared(ctx, query, args)
	if err != nil {
		return err
	}
	r, err := s.QueryContext(ctx, argv...)
	if err != nil {
		return err
	}
	*rows = entsql.Rows{ColumnScanner: r}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

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
//
// Its writers queue on a writeGate, and its diskWatch sees each write's
// outcome.
type stmtDriver struct {
	*entsql.Driver
	stmts *lru.Cache[string, *keptStmt]
	gate  *writeGate
	watch *diskWatch
}

func newStmtDriver(d *entsql.Driver, size int) (*stmtDriver, error) {
	stmts, err := lru.NewWithEvict(size, func(_ string, k *keptStmt) { k.evict() })
	if err != nil {
		return nil, fmt.Errorf("store: statement cache: %w", err)
	}
	return &stmtDriver{Driver: d, stmts: stmts, gate: newWriteGate(), watch: newDiskWatch(nil, "")}, nil
}

// keptStmt is a kept statement and the calls using it: one evicted from
// the cache is closed once none is, since a closed *sql.Stmt refuses to
// run ("statement is closed") and a call may have taken it from the cache
// just before another call's statement pushed it out.
type keptStmt struct {
	*sql.Stmt
	mu      sync.Mutex
	users   int
	evicted bool
	closing bool // closed, or being closed: evicted and no longer in use
}

// acquire counts a user in, unless the statement was evicted.
func (k *keptStmt) acquire() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.evicted {
		return false
	}
	k.users++
	return true
}

// release counts a user out, once its statement has run: rows still being
// read keep the statement open by themselves (Close waits for them).
func (k *keptStmt) release() {
	k.mu.Lock()
	k.users--
	last := k.evicted && k.users == 0
	k.closing = k.closing || last
	k.mu.Unlock()
	if last {
		go k.Close() // in the background: it waits for rows, maybe the caller's own
	}
}

// evict closes the statement, now or when its last user releases it.
func (k *keptStmt) evict() {
	k.mu.Lock()
	k.evicted = true
	last := k.users == 0
	k.closing = k.closing || last
	k.mu.Unlock()
	if last {
		go k.Close()
	}
}

// stmt is query's kept statement, prepared now if it is not kept, and the
// release to call once it has run.
func (d *stmtDriver) stmt(ctx context.Context, query string) (*sql.Stmt, func(), error) {
	if k, ok := d.stmts.Get(query); ok && k.acquire() {
		return k.Stmt, k.release, nil
	}
	s, err := d.DB().PrepareContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	k := &keptStmt{Stmt: s, users: 1}
	// Two calls may have prepared it at once: the first one kept wins,
	// and this one is closed after its single use.
	if prev, found, _ := d.stmts.PeekOrAdd(query, k); found {
		k.evict()
		if prev.acquire() {
			k.release()
			return prev.Stmt, prev.release, nil
		}
	}
	return k.Stmt, k.release, nil
}

// Exec implements dialect.ExecQuerier.
func (d *stmtDriver) Exec(ctx context.Context, query string, args, v any) error {
	leave, err := d.turn(ctx, query)
	if err != nil {
		return err
	}
	defer leave()
	err = execStmt(ctx, query, args, v, d.stmt)
	d.wrote(query, err)
	return err
}

// Query implements dialect.ExecQuerier.
func (d *stmtDriver) Query(ctx context.Context, query string, args, v any) error {
	leave, err := d.turn(ctx, query)
	if err != nil {
		return err
	}
	defer leave()
	err = queryStmt(ctx, query, args, v, d.stmt)
	d.wrote(query, err)
	return err
}

// wrote tells the diskWatch how a statement run outside a transaction,
// which commits by itself, went if it writes.
func (d *stmtDriver) wrote(query string, err error) {
	if writes(query) {
		d.watch.wrote(err)
	}
}

// turn queues a statement run outside a transaction at the gate if it
// writes (ent's writes come through Exec, and through Query as INSERT …
// RETURNING); a read goes ahead at once.
func (d *stmtDriver) turn(ctx context.Context, query string) (leave func(), err error) {
	if !writes(query) {
		return func() {}, nil
	}
	return d.gate.enter(ctx)
}

// Tx implements dialect.Driver.
func (d *stmtDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

// BeginTx starts a transaction whose statements are the kept ones, bound
// to the transaction's connection; ent's Client.BeginTx calls it.
// It queues at the gate first, and leaves it when the transaction ends:
// at Commit or Rollback, or when ctx ends (database/sql then rolls it
// back).
func (d *stmtDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	leave, err := d.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := d.DB().BeginTx(ctx, opts)
	if err != nil {
		leave()
		return nil, err
	}
	stop := context.AfterFunc(ctx, leave)
	return &stmtTx{Tx: tx, d: d, leave: func() { stop(); leave() }}, nil
}

// stmtTx is a transaction of a stmtDriver.
type stmtTx struct {
	*sql.Tx
	d     *stmtDriver
	leave func() // the gate, once the transaction has ended
}

func (t *stmtTx) Commit() error {
	defer t.leave()
	err := t.Tx.Commit()
	t.d.watch.wrote(err)
	return err
}

func (t *stmtTx) Rollback() error {
	defer t.leave()
	return t.Tx.Rollback()
}

// stmt is query's kept statement bound to the transaction, which closes
// it when it ends; once bound, it needs the kept one no longer (a closed
// parent stays prepared for the transactions using it).
func (t *stmtTx) stmt(ctx context.Context, query string) (*sql.Stmt, func(), error) {
	s, release, err := t.d.stmt(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	return t.Tx.StmtContext(ctx, s), func() {}, nil
}

func (t *stmtTx) Exec(ctx context.Context, query string, args, v any) error {
	err := execStmt(ctx, query, args, v, t.stmt)
	t.d.watch.failed(err) // a statement may need room before the commit
	return err
}

func (t *stmtTx) Query(ctx context.Context, query string, args, v any) error {
	err := queryStmt(ctx, query, args, v, t.stmt)
	t.d.watch.failed(err)
	return err
}

// preparer is the kept statement of a query, for a driver or a
// transaction, and the release to call once it has run.
type preparer func(ctx context.Context, query string) (*sql.Stmt, func(), error)

// prepared is query's statement and its arguments, as ent hands them over.
func (p preparer) prepared(ctx context.Context, query string, args any) (*sql.Stmt, []any, func(), error) {
	argv, ok := args.([]any)
	if !ok {
		return nil, nil, nil, fmt.Errorf("store: invalid arguments %T, want []any", args)
	}
	s, release, err := p(ctx, query)
	return s, argv, release, err
}

// execStmt is entsql.Conn's Exec over a prepared statement.
func execStmt(ctx context.Context, query string, args, v any, p preparer) error {
	s, argv, release, err := p.prepared(ctx, query, args)
	if err != nil {
		return err
	}
	res, err := s.ExecContext(ctx, argv...)
	release()
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
	s, argv, release, err := p.prepared(ctx, query, args)
	if err != nil {
		return err
	}
	r, err := s.QueryContext(ctx, argv...)
	release()
	if err != nil {
		return err
	}
	*rows = entsql.Rows{ColumnScanner: r}
	return nil
}

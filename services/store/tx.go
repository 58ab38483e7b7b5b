package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/ent"
)

// WithTx runs fn in a transaction of client: it commits when fn returns nil
// and rolls back when fn returns an error or panics (the panic goes on). The
// error fn returns is passed back unchanged in its chain, so errors.Is/As
// still see it.
func WithTx(ctx context.Context, client *ent.Client, fn func(tx *ent.Tx) error) (err error) {
	tx, err := client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("store: begin transaction: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			_ = tx.Rollback()
			panic(v)
		}
	}()
	if err := fn(tx); err != nil {
		// A cancelled context has rolled the transaction back already.
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			return fmt.Errorf("%w (and rolling back failed: %v)", err, rerr)
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

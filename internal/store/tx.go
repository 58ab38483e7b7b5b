package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/internal/ent"
)

// WithTx runs fn in a transaction of client: it commits when fn returns nil
// and rolls back when fn returns an error or panics (the panic goes on). The
// error fn returns is passed back unchanged in its chain, so errors.Is/As
// still see it. When ctx carries a CommitStep, the step commits.
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
		return rollback(tx, err)
	}
	if err := commit(ctx, tx); err != nil {
		return rollback(tx, fmt.Errorf("store: commit: %w", err))
	}
	return nil
}

// rollback rolls tx back after err, unless it has ended already (a
// cancelled context, or a failed commit, ended it).
func rollback(tx *ent.Tx, err error) error {
	if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
		return fmt.Errorf("%w (and rolling back failed: %v)", err, rerr)
	}
	return err
}

// CommitStep is what a call asks each transaction it runs through WithTx
// to do in place of a bare commit: write what must commit with the call's
// own write, then call commit, and note whether it committed. The worker
// writes a call's audit row this way, so that a write and the record of
// it commit together or not at all. An error rolls the transaction back.
type CommitStep interface {
	Commit(ctx context.Context, tx *ent.Tx, commit func() error) error
}

type commitStepKey struct{}

// WithCommitStep returns ctx carrying step for the transactions run with
// it.
func WithCommitStep(ctx context.Context, step CommitStep) context.Context {
	return context.WithValue(ctx, commitStepKey{}, step)
}

// CommitStepOf returns the CommitStep ctx carries, nil if none: the one
// value a caller (the worker's audit) needs in the context, for itself as
// well as for WithTx.
func CommitStepOf(ctx context.Context) CommitStep {
	step, _ := ctx.Value(commitStepKey{}).(CommitStep)
	return step
}

// commit commits tx, through the CommitStep of ctx if it carries one.
func commit(ctx context.Context, tx *ent.Tx) error {
	if step := CommitStepOf(ctx); step != nil {
		return step.Commit(ctx, tx, tx.Commit)
	}
	return tx.Commit()
}

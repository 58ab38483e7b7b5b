// Package dbcopy moves a deployment's database from the embedded default,
// `taskwire serve`'s SQLite file, to PostgreSQL, the database of a
// scaled-out deployment (`taskwire copy`): every table of every tenant,
// signing keys still sealed under the root key they were sealed with, so
// that workers and front doors given serve's key file and public URL
// accept every token minted before.
//
// The tables and their columns come from ent's generated schema
// (internal/ent/migrate), so a table or column added later is copied and
// verified with no change here; SQLite's full-text tables are left out,
// since PostgreSQL's search index is computed from the copied tasks.
// MCP task operations are copied like the rest, on purpose: a client
// polling a finished one still reads its result from the new database,
// and one still working there reads failed once its lease lapses (no
// worker of the target runs it), which tells the client to run it again.
package dbcopy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/taskwire/taskwire/internal/store"
)

// Config is what Copy copies, from where to where.
type Config struct {
	// From is serve's database: sqlite:<path>, a path to the file, or
	// serve's data directory (holding taskwire.db).
	From string
	// To is an empty PostgreSQL database: postgres://… or postgresql://….
	To string
	// Log is told each table copied and what the target's migration does.
	Log *slog.Logger
}

// Copy migrates the database cfg.To to this build's schema, copies every
// row of cfg.From into it, and verifies the copy (Report.OK). The target
// must hold no rows; the source must be at this build's schema version.
// Rows are read from one snapshot of the source, so a serve still running
// does not tear the copy, though what it writes meanwhile is not copied:
// stop serve first. The rows go in within one transaction: a copy that
// fails leaves the target with the schema alone, ready for another try.
func Copy(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Log == nil {
		return nil, errors.New("dbcopy: Config.Log is required")
	}
	src, err := openSource(ctx, cfg.From)
	if err != nil {
		return nil, err
	}
	defer src.close()
	dst, err := openTarget(ctx, cfg.To)
	if err != nil {
		return nil, err
	}
	defer dst.close()
	if err := dst.refuseRows(ctx); err != nil {
		return nil, err
	}
	if _, err := store.Migrate(ctx, cfg.To, store.Logger(cfg.Log)); err != nil {
		return nil, fmt.Errorf("dbcopy: migrate the target: %w", err)
	}
	start := time.Now()
	if err := copyAll(ctx, src, dst, cfg.Log); err != nil {
		return nil, err
	}
	copied := time.Since(start)
	r, err := compare(ctx, src, dst)
	if err != nil {
		return nil, err
	}
	r.Copied = copied
	return r, r.err()
}

// Verify compares cfg.From with cfg.To again, as Copy does after copying,
// copying nothing: row counts and checksums of every table.
func Verify(ctx context.Context, from, to string) (*Report, error) {
	src, err := openSource(ctx, from)
	if err != nil {
		return nil, err
	}
	defer src.close()
	dst, err := openTarget(ctx, to)
	if err != nil {
		return nil, err
	}
	defer dst.close()
	r, err := compare(ctx, src, dst)
	if err != nil {
		return nil, err
	}
	return r, r.err()
}

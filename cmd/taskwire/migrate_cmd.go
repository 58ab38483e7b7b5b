package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
)

// runMigrate runs `taskwire migrate`: the schema migration of a
// deployment, once before a rollout. It is safe to run again, and from
// two places at once (on PostgreSQL they take turns on an advisory lock).
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("taskwire migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DB, "db", env("TASKWIRE_DB", ""), "database: postgres://… or sqlite:<path> (env TASKWIRE_DB; required)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if cfg.DB == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name the database: taskwire migrate --db URL (or TASKWIRE_DB), e.g. --db postgres://taskwire@db/taskwire")
	}
	// What the migration changes in existing rows is logged on stderr.
	from, err := store.Migrate(ctx, cfg.DB, store.Logger(telemetry.NewLogger(stderr, slog.LevelInfo)))
	if err != nil {
		return err
	}
	if from == store.SchemaVersion {
		fmt.Fprintf(stdout, "Schema of %s is at version %d already; checked.\n", redactDSN(cfg.DB), store.SchemaVersion)
		return nil
	}
	fmt.Fprintf(stdout, "Migrated the schema of %s from version %d to %d.\n", redactDSN(cfg.DB), from, store.SchemaVersion)
	return nil
}

package store

import (
	"context"
	"log/slog"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
)

// backfill brings the rows of an older database (or rows an older build's
// workers wrote during a rollout) in line with the rules of this build,
// after ent's migration added what they need. Each step changes only what
// is still unconverted, so it runs on every migration: running it again is
// harmless, and running the migration again after a rollout converts what
// older workers wrote meanwhile. from is the version the database was at.
func backfill(ctx context.Context, client *ent.Client, drv *entsql.Driver, log *slog.Logger, from int) error {
	if err := lowerAssistants(ctx, client, log); err != nil {
		return err
	}
	if err := FirstOperator(ctx, client, log); err != nil {
		return wrapBackfill(err)
	}
	if err := numberRowsPerTenant(ctx, drv); err != nil {
		return err
	}
	return indexTitles(ctx, client, log, from)
}

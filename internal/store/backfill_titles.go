package store

import (
	"context"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/schema"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// titleBatch is how many tasks indexTitles indexes per transaction, so
// that SQLite's write lock is never held long.
const titleBatch = 500

// indexTitles writes the title tokens (schema version 8) of every task
// that has none: the tasks written before the index, or by a worker of an
// older build during a rollout. Every task indexed has at least one token
// (a title without words has the empty one), so a task without any is
// one to index, and running it again changes nothing. A title an older
// worker changed during a rollout keeps the tokens of the title before
// (see docs/decisions/0013-title-index-for-duplicates.md).
func indexTitles(ctx context.Context, client *ent.Client) error {
	// Tasks of every tenant: system work.
	ctx = privacy.DecisionContext(ctx, privacy.Allow)
	for after := 0; ; {
		last, err := indexTitleBatch(ctx, client, after)
		if err != nil || last == 0 {
			return wrapBackfill(err)
		}
		after = last
	}
}

// indexTitleBatch indexes the next batch of unindexed tasks after id
// after, in one transaction, and returns the last id it read (0: none
// left).
func indexTitleBatch(ctx context.Context, client *ent.Client, after int) (int, error) {
	tx, err := client.Tx(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	tasks, err := tx.Task.Query().Where(task.IDGT(after), task.Not(task.HasTitleTokens())).
		Order(ent.Asc(task.FieldID)).Limit(titleBatch).
		Select(task.FieldTenantID, task.FieldBoardID, task.FieldTitle).All(ctx)
	if err != nil || len(tasks) == 0 {
		return 0, err
	}
	if err := schema.IndexTitles(ctx, tx.Client(), tasks...); err != nil {
		return 0, err
	}
	return tasks[len(tasks)-1].ID, tx.Commit()
}

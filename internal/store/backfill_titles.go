package store

import (
	"context"
	"log/slog"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/schema"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
)

// titleBatch is how many tasks indexTitles indexes per transaction, so
// that SQLite's write lock is never held long.
const titleBatch = 500

// everyWordVersion is the schema version from which the title index holds
// every word of each title (before it, from version 8, only a prefix of
// them: see docs/decisions/0014-title-index-every-word.md).
const everyWordVersion = 9

// indexTitles writes the title tokens of every task that has none: the
// tasks written before the index, or by a worker of an older build during
// a rollout. Every task indexed has at least one token (a title without
// words has the empty one), so a task without any is one to index, and
// running it again changes nothing. A database migrated from before
// everyWordVersion has every task indexed again, once, since its tokens
// are a prefix of the words. A title an older worker changed during a
// rollout keeps the tokens it was given (see
// docs/decisions/0013-title-index-for-duplicates.md).
func indexTitles(ctx context.Context, client *ent.Client, log *slog.Logger, from int) error {
	// Tasks of every tenant: system work.
	ctx = privacy.DecisionContext(ctx, privacy.Allow)
	again := from > 0 && from < everyWordVersion
	if again {
		log.Info("indexing every task title again, with every word", "from_schema_version", from)
	}
	indexed := 0
	for after := 0; ; {
		last, n, err := indexTitleBatch(ctx, client, after, again)
		if err != nil || last == 0 {
			if again && err == nil {
				log.Info("indexed every task title again", "tasks", indexed)
			}
			return wrapBackfill(err)
		}
		after, indexed = last, indexed+n
	}
}

// indexTitleBatch indexes the next batch of tasks after id after, in one
// transaction: those without tokens, or all of them (again), replacing
// their tokens. It returns the last id it read (0: none left) and how many
// it indexed.
func indexTitleBatch(ctx context.Context, client *ent.Client, after int, again bool) (int, int, error) {
	tx, err := client.Tx(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	q := tx.Task.Query().Where(task.IDGT(after))
	if !again {
		q = q.Where(task.Not(task.HasTitleTokens()))
	}
	tasks, err := q.Order(ent.Asc(task.FieldID)).Limit(titleBatch).
		Select(task.FieldTenantID, task.FieldBoardID, task.FieldTitle).All(ctx)
	if err != nil || len(tasks) == 0 {
		return 0, 0, err
	}
	if again {
		ids := make([]int, len(tasks))
		for i, t := range tasks {
			ids[i] = t.ID
		}
		if _, err := tx.TaskTitleToken.Delete().Where(tasktitletoken.TaskIDIn(ids...)).Exec(ctx); err != nil {
			return 0, 0, err
		}
	}
	if err := schema.IndexTitles(ctx, tx.Client(), tasks...); err != nil {
		return 0, 0, err
	}
	return tasks[len(tasks)-1].ID, len(tasks), tx.Commit()
}

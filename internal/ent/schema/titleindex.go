package schema

import (
	"context"
	"fmt"

	"entgo.io/ent"

	gen "github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
	"github.com/taskwire/taskwire/internal/titlematch"
)

// indexTitle keeps a task's title tokens (TaskTitleToken) right with
// every write that sets its title or its board, in that write's own
// transaction: a hook rather than a call in each write, so that no path
// that makes or renames a task (tasks_create, tasks_import, tasks_update,
// a test's seed, a migration) can leave the index behind.
func indexTitle() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			tm, ok := m.(*gen.TaskMutation)
			if !ok {
				return next.Mutate(ctx, m)
			}
			switch {
			case m.Op().Is(ent.OpCreate) && ctx.Value(indexLaterKey{}) != nil:
				return next.Mutate(ctx, m)
			case m.Op().Is(ent.OpCreate):
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				return v, IndexTitles(ctx, tm.Client(), v.(*gen.Task))
			case m.Op().Is(ent.OpUpdate | ent.OpUpdateOne):
				return reindexTitles(ctx, tm, next)
			}
			return next.Mutate(ctx, m)
		})
	}
}

// indexLaterKey marks a context whose new tasks get their title tokens
// from the caller (IndexTitlesLater).
type indexLaterKey struct{}

// IndexTitlesLater returns ctx for creating tasks whose title tokens the
// caller writes itself, in the same transaction, with IndexTitles over
// many tasks at once: an import of a hundred thousand tasks then writes
// them in a few thousand inserts rather than one per task, which on
// PostgreSQL is a round trip each. Updates still reindex as they go.
func IndexTitlesLater(ctx context.Context) context.Context {
	return context.WithValue(ctx, indexLaterKey{}, true)
}

// reindexTitles runs the update tm and, when it sets a title or a board,
// writes the tokens of the tasks it changed again.
func reindexTitles(ctx context.Context, tm *gen.TaskMutation, next ent.Mutator) (ent.Value, error) {
	_, title := tm.Title()
	_, board := tm.BoardID()
	if !title && !board {
		return next.Mutate(ctx, tm)
	}
	ids, err := tm.IDs(ctx)
	if err != nil {
		return nil, err
	}
	v, err := next.Mutate(ctx, tm)
	if err != nil || len(ids) == 0 {
		return v, err
	}
	c := tm.Client()
	if _, err := c.TaskTitleToken.Delete().Where(tasktitletoken.TaskIDIn(ids...)).Exec(ctx); err != nil {
		return nil, fmt.Errorf("schema: reindex task titles: %w", err)
	}
	tasks, err := c.Task.Query().Where(task.IDIn(ids...)).
		Select(task.FieldTenantID, task.FieldBoardID, task.FieldTitle).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("schema: reindex task titles: %w", err)
	}
	return v, IndexTitles(ctx, c, tasks...)
}

// IndexTitles writes the title tokens of tasks, which have none yet.
// The backfill of tasks written before the index uses it too.
func IndexTitles(ctx context.Context, c *gen.Client, tasks ...*gen.Task) error {
	var rows []*gen.TaskTitleTokenCreate
	for _, t := range tasks {
		set := titlematch.Set(titlematch.Words(t.Title))
		for _, token := range titlematch.Tokens(set) {
			rows = append(rows, c.TaskTitleToken.Create().SetTenantID(t.TenantID).SetBoardID(t.BoardID).
				SetTaskID(t.ID).SetToken(token).SetWords(len(set)))
		}
	}
	if err := c.TaskTitleToken.CreateBulk(rows...).Exec(ctx); err != nil {
		return fmt.Errorf("schema: index task titles: %w", err)
	}
	return nil
}

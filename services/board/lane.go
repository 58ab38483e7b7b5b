package board

import (
	"context"
	"slices"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// laneQuery returns the query of the tasks, not deleted, of lane on board
// boardID.
func laneQuery(c *ent.Client, a actor, boardID int, lane task.Lane) *ent.TaskQuery {
	return c.Task.Query().Where(task.TenantID(a.tenant.ID), task.BoardID(boardID), task.LaneEQ(lane), task.DeletedAtIsNil())
}

// laneTasks returns the tasks of lane on board boardID, top first. Ties
// (older data, all at position 0) go by ref, which renumber then makes
// explicit.
func laneTasks(ctx context.Context, c *ent.Client, a actor, boardID int, lane task.Lane) ([]*ent.Task, error) {
	return laneQuery(c, a, boardID, lane).
		Order(ent.Asc(task.FieldPosition), ent.Asc(task.FieldNumber)).All(ctx)
}

// bottom returns the position just below the lowest task of lane on board
// boardID: 0 for an empty lane. It orders by position alone, which the
// lane's index gives (ties do not change the answer): with the number as
// a second key, PostgreSQL sorted the whole lane on every create.
func bottom(ctx context.Context, c *ent.Client, a actor, boardID int, lane task.Lane) (int, error) {
	last, err := laneQuery(c, a, boardID, lane).
		Order(ent.Desc(task.FieldPosition)).First(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return last.Position + 1, nil
}

// renumber gives ts, tasks of a lane in order, the positions first,
// first+1, ... Only the position changes: it is the order of the board, not
// an edit of the task, so neither version nor updated_at moves (unless
// another write changed the task since it was read, in which case
// updated_at becomes now).
func renumber(ctx context.Context, tx *ent.Tx, a actor, ts []*ent.Task, first int) error {
	for i, t := range ts {
		i += first
		if t.Position == i {
			continue
		}
		n, err := tx.Task.Update().
			Where(task.TenantID(a.tenant.ID), task.ID(t.ID), task.Version(t.Version)).
			SetPosition(i).SetUpdatedAt(t.UpdatedAt).Save(ctx)
		if err == nil && n == 0 {
			err = tx.Task.Update().Where(task.TenantID(a.tenant.ID), task.ID(t.ID)).SetPosition(i).Exec(ctx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// without returns ts without the task with id, in order (it reuses ts).
func without(ts []*ent.Task, id int) []*ent.Task {
	return slices.DeleteFunc(ts, func(t *ent.Task) bool { return t.ID == id })
}

// boardOf returns the board with id in tx, for its current WIP limits.
func boardOf(ctx context.Context, tx *ent.Tx, a actor, id int) (*ent.Board, error) {
	return tx.Board.Query().Where(entboard.TenantID(a.tenant.ID), entboard.ID(id)).Only(ctx)
}

// checkWIP refuses to put adding more tasks into lane of b, which holds
// count tasks now, past the lane's WIP limit.
func checkWIP(b *ent.Board, lane task.Lane, count, adding int) error {
	limit := b.WipLimits[string(lane)]
	if limit <= 0 || count+adding <= limit {
		return nil
	}
	if adding == 1 {
		return domainerr.New(domainerr.Conflict,
			"lane %s of board %s is at its WIP limit of %d tasks (it holds %d): finish or move a task out of %s first, put this one in another lane, or ask an admin to raise the limit with boards_update",
			lane, b.Slug, limit, count, lane)
	}
	return domainerr.New(domainerr.Conflict,
		"lane %s of board %s holds %d tasks and has a WIP limit of %d, so it cannot take %d more: put fewer of them in %s, move tasks out of it first, or ask an admin to raise the limit with boards_update",
		lane, b.Slug, count, limit, adding, lane)
}

// checkLaneRoom counts the tasks of lane on b in tx and refuses adding
// more past its WIP limit.
func checkLaneRoom(ctx context.Context, tx *ent.Tx, a actor, b *ent.Board, lane task.Lane, adding int) error {
	if b.WipLimits[string(lane)] <= 0 {
		return nil
	}
	n, err := laneQuery(tx.Client(), a, b.ID, lane).Count(ctx)
	if err != nil {
		return err
	}
	return checkWIP(b, lane, n, adding)
}

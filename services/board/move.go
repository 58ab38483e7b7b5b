package board

import (
	"context"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/quota"
)

func (s *Service) moveTask(ctx context.Context, a actor, req *taskwirev1.MoveTaskRequest) (*taskwirev1.MoveTaskResponse, error) {
	if _, err := parseRef(req.GetRef()); err != nil {
		return nil, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
		return nil, err
	}
	lane, setLane, err := laneFromProto(req.GetLane())
	if err != nil {
		return nil, err
	}
	if req.Position != nil && *req.Position < 0 {
		return nil, domainerr.New(domainerr.Invalid, "position %d is not valid: use 0 for the top of the lane, or leave it out for the bottom", *req.Position)
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_MoveTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.MoveTaskResponse, error) {
			if err := quota.Lock(ctx, tx, a.tenant.ID); err != nil {
				return nil, err
			}
			before, t, err := changeTask(ctx, tx, a, req.GetRef(), req.GetExpectedVersion(), ActionTaskMoved,
				func(t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error) {
					to := t.Lane
					if setLane {
						to = lane
					}
					return place(ctx, tx, a, t, u, to, req.Position)
				})
			if err != nil {
				return nil, err
			}
			p, err := taskProto(ctx, tx.Client(), a, t)
			return &taskwirev1.MoveTaskResponse{Task: p, FromLane: toProto(lanes, before.Lane)}, err
		})
}

// place sets on u the move of t to lane to, at position (nil for the
// bottom; past the end is the bottom too), and renumbers the tasks around
// it so positions stay 0, 1, 2, ... in both lanes. Nothing moves on an
// archived board. A move into another
// lane that holds its WIP limit already is refused; within a lane it is
// always allowed. It returns nil when t is where it was asked to be.
func place(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, u *ent.TaskUpdateOne, to task.Lane, position *int32) (map[string]any, error) {
	b, err := boardOf(ctx, tx, a, t.BoardID)
	if err != nil {
		return nil, err
	}
	if err := checkOpen(b); err != nil {
		return nil, err
	}
	dest, err := laneTasks(ctx, tx.Client(), a, t.BoardID, to)
	if err != nil {
		return nil, err
	}
	was := slices.IndexFunc(dest, func(o *ent.Task) bool { return o.ID == t.ID })
	others := without(dest, t.ID)
	at := len(others)
	if position != nil && int(*position) < at {
		at = int(*position)
	}
	if to == t.Lane && at == was {
		return nil, nil
	}
	from := was
	if to != t.Lane {
		if err := checkWIP(b, to, len(others), 1); err != nil {
			return nil, err
		}
		source, err := laneTasks(ctx, tx.Client(), a, t.BoardID, t.Lane)
		if err != nil {
			return nil, err
		}
		from = slices.IndexFunc(source, func(o *ent.Task) bool { return o.ID == t.ID })
		source = without(source, t.ID)
		if err := renumber(ctx, tx, a, source, 0); err != nil {
			return nil, err
		}
		u.SetLane(to)
	}
	// The others keep their order around t's slot.
	if err := renumber(ctx, tx, a, others[:at], 0); err != nil {
		return nil, err
	}
	if err := renumber(ctx, tx, a, others[at:], at+1); err != nil {
		return nil, err
	}
	u.SetPosition(at)
	return map[string]any{"from": string(t.Lane), "to": string(to), "from_position": from, "position": at}, nil
}

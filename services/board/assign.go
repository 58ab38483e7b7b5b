package board

import (
	"context"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/idempotency"
)

// ActionTaskAssigned is recorded when a task's assignees change.
const ActionTaskAssigned = "task.assigned"

// AssignTask adds and removes assignees of a task.
func (s *Service) AssignTask(ctx context.Context, req *taskwirev1.AssignTaskRequest) (*taskwirev1.AssignTaskResponse, error) {
	return call(ctx, s, req, s.assignTask)
}

func (s *Service) assignTask(ctx context.Context, a actor, req *taskwirev1.AssignTaskRequest) (*taskwirev1.AssignTaskResponse, error) {
	if _, err := parseRef(req.GetRef()); err != nil {
		return nil, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
		return nil, err
	}
	add, err := checkAssignees(a, req.GetAdd())
	if err != nil {
		return nil, err
	}
	remove, err := checkAssignees(a, req.GetRemove())
	if err != nil {
		return nil, err
	}
	if len(add)+len(remove) == 0 {
		return nil, domainerr.New(domainerr.Invalid, `nothing to change: name handles in add or remove ("me" for yourself)`)
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_AssignTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.AssignTaskResponse, error) {
			addIDs, err := memberIDs(ctx, tx.Client(), a, add)
			if err != nil {
				return nil, err
			}
			if err := checkKnown(a, addIDs, add); err != nil {
				return nil, err
			}
			// A removed member may still be unassigned; a handle nobody ever had may not.
			removeIDs, err := anyMemberIDs(ctx, tx.Client(), a, remove)
			if err != nil {
				return nil, err
			}
			if err := checkKnown(a, removeIDs, remove); err != nil {
				return nil, err
			}
			_, t, err := changeTask(ctx, tx, a, req.GetRef(), req.GetExpectedVersion(), ActionTaskAssigned,
				func(t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error) {
					return assign(t, u, add, addIDs, remove, removeIDs)
				})
			if err != nil {
				return nil, err
			}
			p, err := taskProto(ctx, tx.Client(), a, t)
			return &taskwirev1.AssignTaskResponse{Task: p}, err
		})
}

// assign sets on u the assignees of t with the members of add added and
// those of remove removed (removing wins), and returns the handles that
// changed; nil when none did.
func assign(t *ent.Task, u *ent.TaskUpdateOne, add []string, addIDs map[string]int, remove []string, removeIDs map[string]int) (map[string]any, error) {
	var ids []int
	var added, removed []string
	gone := map[int]bool{}
	for _, h := range remove {
		gone[removeIDs[h]] = true
	}
	for _, id := range t.AssigneeIds {
		if !gone[id] {
			ids = append(ids, id)
		}
	}
	for _, h := range remove {
		if slices.Contains(t.AssigneeIds, removeIDs[h]) {
			removed = append(removed, h)
		}
	}
	for _, h := range add {
		if id := addIDs[h]; !gone[id] && !slices.Contains(ids, id) {
			ids = append(ids, id)
			added = append(added, h)
		}
	}
	if len(added)+len(removed) == 0 {
		return nil, nil
	}
	if len(ids) > MaxAssignees {
		return nil, domainerr.New(domainerr.Invalid,
			"%s would have %d assignees, more than %d: remove some with remove first", Ref(t.Number), len(ids), MaxAssignees)
	}
	if ids == nil {
		ids = []int{}
	}
	u.SetAssigneeIds(ids)
	detail := map[string]any{}
	putList(detail, "added", added)
	putList(detail, "removed", removed)
	return detail, nil
}

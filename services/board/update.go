package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/task"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/store"
)

func (s *Service) updateTask(ctx context.Context, a actor, req *taskwirev1.UpdateTaskRequest) (*taskwirev1.UpdateTaskResponse, error) {
	var title *string
	if req.Title != nil {
		t, err := checkTitle(*req.Title)
		if err != nil {
			return nil, err
		}
		title = &t
	}
	if req.Note != nil {
		if err := checkNote(*req.Note); err != nil {
			return nil, err
		}
	}
	kind, setKind, err := kindFromProto(req.GetKind())
	if err != nil {
		return nil, err
	}
	size, setSize, err := sizeFromProto(req.GetSize())
	if err != nil {
		return nil, err
	}
	edit := func(t *ent.Task, u *ent.TaskUpdateOne) map[string]any {
		var changed []string
		if title != nil && *title != t.Title {
			u.SetTitle(*title)
			changed = append(changed, "title")
		}
		if req.Note != nil && *req.Note != t.Note {
			u.SetNote(*req.Note)
			changed = append(changed, "note")
		}
		if setKind && kind != t.Kind {
			u.SetKind(kind)
			changed = append(changed, "kind")
		}
		if setSize && (t.Size == nil || size != *t.Size) {
			u.SetSize(size)
			changed = append(changed, "size")
		}
		if changed == nil {
			return nil
		}
		return map[string]any{"changed": changed}
	}
	_, p, err := s.changeTask(ctx, a, req.GetRef(), req.GetExpectedVersion(), ActionTaskUpdated, edit)
	if err != nil {
		return nil, err
	}
	return &taskwirev1.UpdateTaskResponse{Task: p}, nil
}

func (s *Service) moveTask(ctx context.Context, a actor, req *taskwirev1.MoveTaskRequest) (*taskwirev1.MoveTaskResponse, error) {
	lane, ok, err := laneFromProto(req.GetLane())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, domainerr.New(domainerr.Invalid, "lane is missing: name the lane to move to: backlog, next, doing or done")
	}
	edit := func(t *ent.Task, u *ent.TaskUpdateOne) map[string]any {
		if t.Lane == lane {
			return nil
		}
		u.SetLane(lane)
		return map[string]any{"from": string(t.Lane), "to": string(lane)}
	}
	before, p, err := s.changeTask(ctx, a, req.GetRef(), req.GetExpectedVersion(), ActionTaskMoved, edit)
	if err != nil {
		return nil, err
	}
	return &taskwirev1.MoveTaskResponse{Task: p, FromLane: toProto(lanes, before.Lane)}, nil
}

// changeTask applies edit to the task with ref in one transaction: it
// checks expected (0 means any version), lets edit set the changes on the
// update, bumps the version and records action with edit's detail. An edit
// that returns no detail changes nothing and writes nothing. It returns the
// task as it was and, converted, as it is now.
func (s *Service) changeTask(ctx context.Context, a actor, ref string, expected int32, action string,
	edit func(*ent.Task, *ent.TaskUpdateOne) map[string]any) (*ent.Task, *taskwirev1.Task, error) {
	if _, err := parseRef(ref); err != nil {
		return nil, nil, err
	}
	if expected < 0 {
		return nil, nil, domainerr.New(domainerr.Invalid, "expected_version %d is not valid: pass the version you last read (1 or more), or leave it out", expected)
	}
	var before *ent.Task
	var out *taskwirev1.Task
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		t, err := findTask(ctx, tx.Client(), a, ref)
		if err != nil {
			return err
		}
		before = t
		if expected != 0 && int(expected) != t.Version {
			return conflict(t, int(expected))
		}
		u := tx.Task.UpdateOneID(t.ID).Where(task.TenantID(a.tenant.ID), task.Version(t.Version)).AddVersion(1)
		detail := edit(t, u)
		if detail != nil {
			t, err = u.Save(ctx)
			if ent.IsNotFound(err) { // changed between our read and write
				return conflict(before, before.Version)
			}
			if err != nil {
				return err
			}
			detail["ref"], detail["version"] = Ref(t.Number), t.Version
			if err := record(ctx, tx, a, action, t, detail); err != nil {
				return err
			}
		}
		out, err = taskProto(ctx, tx.Client(), a, t)
		return err
	})
	return before, out, err
}

// conflict reports that t is no longer at version want.
func conflict(t *ent.Task, want int) error {
	if t.Version != want {
		return domainerr.New(domainerr.Conflict, "%s changed since version %d (now %d): read it again with tasks_get, then retry with the new version",
			Ref(t.Number), want, t.Version)
	}
	return domainerr.New(domainerr.Conflict, "%s was changed by someone else at the same time: read it again with tasks_get, then retry",
		Ref(t.Number))
}

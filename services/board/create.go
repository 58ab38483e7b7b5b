package board

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/services/store"
)

func (s *Service) createTask(ctx context.Context, a actor, req *taskwirev1.CreateTaskRequest) (*taskwirev1.CreateTaskResponse, error) {
	d, err := checkDraft(a, &taskwirev1.TaskDraft{
		Title: req.GetTitle(), Note: req.GetNote(), Lane: req.GetLane(),
		Kind: req.GetKind(), Size: req.GetSize(), Assignees: req.GetAssignees(),
	})
	if err != nil {
		return nil, err
	}
	b, err := findBoard(ctx, s.client, a, req.GetBoard())
	if err != nil {
		return nil, err
	}
	ids, err := memberIDs(ctx, s.client, a, d.assignees)
	if err != nil {
		return nil, err
	}
	if err := checkKnown(a, ids, d.assignees); err != nil {
		return nil, err
	}
	resp := &taskwirev1.CreateTaskResponse{}
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		number, err := allocate(ctx, tx, a, 1)
		if err != nil {
			return err
		}
		t, err := newTask(tx, a, b, number, d, ids).Save(ctx)
		if err != nil {
			return err
		}
		err = record(ctx, tx, a, ActionTaskCreated, t, map[string]any{"ref": Ref(t.Number), "board": b.Slug, "title": t.Title})
		if err != nil {
			return err
		}
		resp.Task, err = taskProto(ctx, tx.Client(), a, t)
		return err
	})
	return resp, err
}

// allocate reserves n task numbers in the caller's tenant and returns the
// first. It must run inside the write transaction: bumping the tenant's
// counter locks its row until commit on PostgreSQL (SQLite serializes the
// writing transactions), so two transactions never get the same numbers;
// the unique (tenant_id, number) index is the backstop.
func allocate(ctx context.Context, tx *ent.Tx, a actor, n int) (int, error) {
	t, err := tx.Tenant.UpdateOneID(a.tenant.ID).AddTaskSeq(n).Save(ctx)
	if err != nil {
		return 0, err
	}
	return t.TaskSeq - n + 1, nil
}

// newTask builds the creation of a checked draft as task number on board b.
func newTask(tx *ent.Tx, a actor, b *ent.Board, number int, d draft, ids map[string]int) *ent.TaskCreate {
	now := time.Now().UTC().Truncate(time.Microsecond) // as the schema's defaults: what PostgreSQL keeps
	return tx.Task.Create().
		SetCreatedAt(now).
		SetUpdatedAt(now).
		SetTenantID(a.tenant.ID).
		SetBoardID(b.ID).
		SetNumber(number).
		SetTitle(d.title).
		SetNote(d.note).
		SetLane(d.lane).
		SetKind(d.kind).
		SetNillableSize(d.size).
		SetAssigneeIds(d.assigneeIDs(ids)).
		SetCreatedByID(a.member.ID)
}

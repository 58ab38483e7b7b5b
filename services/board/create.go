package board

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/idempotency"
)

func (s *Service) createTask(ctx context.Context, a actor, req *taskwirev1.CreateTaskRequest) (*taskwirev1.CreateTaskResponse, error) {
	d, err := checkDraft(a, &taskwirev1.TaskDraft{
		Title: req.GetTitle(), Note: req.GetNote(), Lane: req.GetLane(),
		Kind: req.GetKind(), Size: req.GetSize(), Assignees: req.GetAssignees(),
		Labels: req.GetLabels(), Project: req.GetProject(),
	}, taskNote)
	if err != nil {
		return nil, err
	}
	links, err := checkLinks("links", req.GetLinks())
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
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_CreateTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.CreateTaskResponse, error) {
			t, err := insertTask(ctx, tx, a, b.ID, d, ids, links, req.GetAllowDuplicate())
			if err != nil {
				return nil, err
			}
			p, err := taskProto(ctx, tx.Client(), a, t)
			return &taskwirev1.CreateTaskResponse{Task: p}, err
		})
}

// insertTask creates the task of d on board boardID in tx, at the bottom
// of its lane, after the checks that depend on what the board holds now:
// the lane's WIP limit, likely duplicates (unless allowed) and the tasks
// its links name.
func insertTask(ctx context.Context, tx *ent.Tx, a actor, boardID int, d draft, ids map[string]int, links []linkSpec, allowDuplicate bool) (*ent.Task, error) {
	number, err := allocate(ctx, tx, a, 1) // locks the tenant's row: see quota.Lock
	if err != nil {
		return nil, err
	}
	b, err := boardOf(ctx, tx, a, boardID)
	if err != nil {
		return nil, err
	}
	if err := checkOpen(b); err != nil {
		return nil, err
	}
	if err := checkTakes(b, d.kind); err != nil {
		return nil, err
	}
	if err := checkLaneRoom(ctx, tx, a, b, d.lane, 1); err != nil {
		return nil, err
	}
	if !allowDuplicate {
		dups, err := findDuplicates(ctx, tx.Client(), a, b.ID, d.title)
		if err != nil {
			return nil, err
		}
		if len(dups) > 0 {
			return nil, duplicateError(b.Slug, dups)
		}
	}
	pos, err := bottom(ctx, tx.Client(), a, b.ID, d.lane)
	if err != nil {
		return nil, err
	}
	t, err := newTask(tx, a, b, number, pos, d, ids).Save(ctx)
	if err != nil {
		return nil, err
	}
	added, _, err := applyLinks(ctx, tx, a, t, links, nil)
	if err != nil {
		return nil, err
	}
	detail := createdDetail(b, t)
	if len(added) > 0 {
		detail["links"] = added
	}
	return t, record(ctx, tx, a, ActionTaskCreated, t, detail)
}

// createdDetail is what the activity log keeps of a new task.
func createdDetail(b *ent.Board, t *ent.Task) map[string]any {
	detail := map[string]any{"ref": Ref(t.Number), "board": b.Slug, "title": t.Title, "lane": string(t.Lane)}
	if len(t.Labels) > 0 {
		detail["labels"] = t.Labels
	}
	if t.Project != "" {
		detail["project"] = t.Project
	}
	return detail
}

// allocate reserves n task numbers in the caller's tenant and returns the
// first. It must run inside the write transaction: bumping the tenant's
// counter locks its row until commit on PostgreSQL (SQLite serializes the
// writing transactions), so two transactions never get the same numbers;
// the unique (tenant_id, number) index is the backstop. The n tasks must
// fit the tenant's task quota, checked on the row the bump returns.
func allocate(ctx context.Context, tx *ent.Tx, a actor, n int) (int, error) {
	t, err := tx.Tenant.UpdateOneID(a.tenant.ID).AddTaskSeq(n).Save(ctx)
	if err != nil {
		return 0, err
	}
	if err := a.quota.CheckTasks(ctx, tx, t, n); err != nil {
		return 0, err
	}
	return t.TaskSeq - n + 1, nil
}

// newTask builds the creation of a checked draft as task number on board
// b, at position in its lane; the caller is the author of its text.
func newTask(tx *ent.Tx, a actor, b *ent.Board, number, position int, d draft, ids map[string]int) *ent.TaskCreate {
	now := time.Now().UTC().Truncate(time.Microsecond) // as the schema's defaults: what PostgreSQL keeps
	labels := d.labels
	if labels == nil {
		labels = []string{}
	}
	return tx.Task.Create().
		SetCreatedAt(now).
		SetUpdatedAt(now).
		SetTenantID(a.tenant.ID).
		SetBoardID(b.ID).
		SetNumber(number).
		SetTitle(d.title).
		SetNote(d.note).
		SetLane(d.lane).
		SetPosition(position).
		SetKind(d.kind).
		SetNillableSize(d.size).
		SetAssigneeIds(d.assigneeIDs(ids)).
		SetLabels(labels).
		SetProject(d.project).
		SetTextAuthorIds([]int{a.member.ID}).
		SetCreatedByID(a.member.ID)
}

package board

import (
	"context"
	"fmt"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/progress"
	"github.com/taskwire/taskwire/services/store"
)

// importBatch is how many tasks ImportTasks creates between progress reports.
const importBatch = 10

func (s *Service) importTasks(ctx context.Context, a actor, req *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error) {
	drafts, ids, err := s.checkImport(ctx, a, req.GetTasks())
	if err != nil {
		return nil, err
	}
	b, err := findBoard(ctx, s.client, a, req.GetBoard())
	if err != nil {
		return nil, err
	}
	progress.Log(ctx, "info", fmt.Sprintf("All %d drafts are valid; importing them into board %s in one transaction", len(drafts), b.Slug))
	resp := &taskwirev1.ImportTasksResponse{}
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		first, err := allocate(ctx, tx, a, len(drafts))
		if err != nil {
			return err
		}
		progress.Log(ctx, "debug", fmt.Sprintf("Reserved refs %s to %s", Ref(first), Ref(first+len(drafts)-1)))
		var created []*ent.ActivityCreate
		for i, d := range drafts {
			if err := ctx.Err(); err != nil {
				return err
			}
			t, err := newTask(tx, a, b, first+i, d, ids).Save(ctx)
			if err != nil {
				return err
			}
			resp.Refs = append(resp.Refs, Ref(t.Number))
			created = append(created, activityOf(tx, a, ActionTaskCreated, t,
				map[string]any{"ref": Ref(t.Number), "board": b.Slug, "title": t.Title, "import": true}))
			if done := i + 1; done%importBatch == 0 || done == len(drafts) {
				if err := tx.Activity.CreateBulk(created...).Exec(ctx); err != nil {
					return err
				}
				created = created[:0]
				progress.Report(ctx, float64(done), float64(len(drafts)), fmt.Sprintf("Imported %d of %d tasks", done, len(drafts)))
			}
		}
		return record(ctx, tx, a, ActionTasksImported, nil, map[string]any{
			"board": b.Slug, "count": len(drafts), "first": resp.Refs[0], "last": resp.Refs[len(resp.Refs)-1],
		})
	})
	if err != nil {
		progress.Log(ctx, "warning", "The import was rolled back: no task of it was saved")
		return nil, err
	}
	resp.Imported = int32(len(resp.Refs))
	return resp, nil
}

// checkImport validates every draft before anything is written and resolves
// all their assignees in one query.
func (s *Service) checkImport(ctx context.Context, a actor, in []*taskwirev1.TaskDraft) ([]draft, map[string]int, error) {
	if len(in) == 0 {
		return nil, nil, domainerr.New(domainerr.Invalid, "tasks is empty: pass 1 to %d tasks to import", MaxImport)
	}
	if len(in) > MaxImport {
		return nil, nil, domainerr.New(domainerr.Invalid, "%d tasks is more than %d: split the import into several calls", len(in), MaxImport)
	}
	drafts := make([]draft, len(in))
	var handles []string
	for i, d := range in {
		var err error
		if drafts[i], err = checkDraft(a, d); err != nil {
			return nil, nil, atIndex(i, err)
		}
		handles = append(handles, drafts[i].assignees...)
	}
	slices.Sort(handles)
	ids, err := memberIDs(ctx, s.client, a, slices.Compact(handles))
	if err != nil {
		return nil, nil, err
	}
	for i, d := range drafts {
		if err := checkKnown(a, ids, d.assignees); err != nil {
			return nil, nil, atIndex(i, err)
		}
	}
	return drafts, ids, nil
}

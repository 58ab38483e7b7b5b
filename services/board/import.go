package board

import (
	"context"
	"fmt"
	"maps"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
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
	resp, err := idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_ImportTasks_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.ImportTasksResponse, error) {
			return importDrafts(ctx, tx, a, b.ID, drafts, ids, req.GetAllowDuplicate())
		})
	if err != nil {
		progress.Log(ctx, "warning", "The import was rolled back: no task of it was saved")
		return nil, err
	}
	// The import has committed: stale statistics only slow reads down, so
	// failing to refresh them is logged, not returned. The title index
	// grows with the tasks: with its statistics stale, PostgreSQL reads a
	// whole board's entries for the near-duplicate check instead of the
	// few for the title's words (250 ms, not 0.7, at 100,000 tasks).
	for _, table := range []string{task.Table, tasktitletoken.Table} {
		if err := store.FreshenStats(ctx, s.client, table); err != nil {
			s.log.WarnContext(ctx, "import: a table's statistics could not be refreshed, so lists, searches and creates may be slow until autovacuum analyzes it", "table", table, "error", err)
		}
	}
	return resp, nil
}

// importDrafts creates the tasks of drafts on board boardID in tx, each at
// the bottom of its lane in the order given, once every lane is known to
// have room for all the drafts that go to it. Unless allowDuplicate, the
// drafts that likely repeat a task are skipped (splitDuplicates).
func importDrafts(ctx context.Context, tx *ent.Tx, a actor, boardID int, drafts []draft, ids map[string]int, allowDuplicate bool) (*taskwirev1.ImportTasksResponse, error) {
	if err := quota.Lock(ctx, tx, a.tenant.ID); err != nil {
		return nil, err
	}
	b, err := boardOf(ctx, tx, a, boardID)
	if err != nil {
		return nil, err
	}
	if err := checkOpen(b); err != nil {
		return nil, err
	}
	for i, d := range drafts {
		if err := checkTakes(b, d.kind); err != nil {
			return nil, domainerr.Prefix(err, "tasks[%d]: ", i)
		}
	}
	var skipped []skippedDraft
	if !allowDuplicate {
		if drafts, skipped, err = splitDuplicates(ctx, tx.Client(), a, b.ID, drafts); err != nil {
			return nil, err
		}
	}
	if len(drafts) == 0 {
		progress.Log(ctx, "info", fmt.Sprintf("Every draft likely repeats a task of board %s: nothing was imported", b.Slug))
		return &taskwirev1.ImportTasksResponse{Refs: []string{}, Skipped: skippedProtos(skipped, 0)}, nil
	}
	// Every task the batch makes counts against the quota (allocate checks
	// it) before anything is made; the drafts skipped as duplicates make
	// none.
	first, err := allocate(ctx, tx, a, len(drafts))
	if err != nil {
		return nil, err
	}
	next, err := laneBottoms(ctx, tx, a, b, drafts)
	if err != nil {
		return nil, err
	}
	progress.Log(ctx, "debug", fmt.Sprintf("Reserved refs %s to %s", Ref(first), Ref(first+len(drafts)-1)))
	resp := &taskwirev1.ImportTasksResponse{Skipped: skippedProtos(skipped, first)}
	var created []*ent.ActivityCreate
	for i, d := range drafts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := newTask(tx, a, b, first+i, next[d.lane], d, ids).Save(ctx)
		if err != nil {
			return nil, err
		}
		next[d.lane]++
		resp.Refs = append(resp.Refs, Ref(t.Number))
		detail := createdDetail(b, t)
		detail["import"] = true
		created = append(created, activityOf(ctx, tx, a, ActionTaskCreated, t, detail))
		if done := i + 1; done%importBatch == 0 || done == len(drafts) {
			if err := tx.Activity.CreateBulk(created...).Exec(ctx); err != nil {
				return nil, err
			}
			created = created[:0]
			progress.Report(ctx, float64(done), float64(len(drafts)), fmt.Sprintf("Imported %d of %d tasks", done, len(drafts)))
		}
	}
	resp.Imported = int32(len(resp.Refs))
	return resp, record(ctx, tx, a, ActionTasksImported, nil, map[string]any{
		"board": b.Slug, "count": len(drafts), "first": resp.Refs[0], "last": resp.Refs[len(resp.Refs)-1], "skipped": len(skipped),
	})
}

// laneBottoms checks that each lane of b the drafts go to has room for all
// of them under its WIP limit, and returns the position of the first new
// task of each.
func laneBottoms(ctx context.Context, tx *ent.Tx, a actor, b *ent.Board, drafts []draft) (map[task.Lane]int, error) {
	adding := map[task.Lane]int{}
	for _, d := range drafts {
		adding[d.lane]++
	}
	next := map[task.Lane]int{}
	for _, lane := range slices.Sorted(maps.Keys(adding)) {
		if err := checkLaneRoom(ctx, tx, a, b, lane, adding[lane]); err != nil {
			return nil, err
		}
		pos, err := bottom(ctx, tx.Client(), a, b.ID, lane)
		if err != nil {
			return nil, err
		}
		next[lane] = pos
	}
	return next, nil
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
		if drafts[i], err = checkDraft(a, d, importNote); err != nil {
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

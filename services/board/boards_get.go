package board

import (
	"cmp"
	"context"
	"maps"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// MaxTallies caps the labels and the projects boards_get lists, so that
// its answer stays bounded however many a board uses.
const MaxTallies = 100

// GetBoard returns one board in full: lanes with WIP limits and counts,
// kinds, sizes, and the labels and projects in use.
func (s *Service) GetBoard(ctx context.Context, req *taskwirev1.GetBoardRequest) (*taskwirev1.GetBoardResponse, error) {
	return call(ctx, s, req, s.getBoard)
}

func (s *Service) getBoard(ctx context.Context, a actor, req *taskwirev1.GetBoardRequest) (*taskwirev1.GetBoardResponse, error) {
	b, err := findBoard(ctx, s.client, a, req.GetBoard())
	if err != nil {
		return nil, err
	}
	return boardDetail(ctx, s.client, a, b)
}

// boardDetail is the GetBoardResponse of b, read through c (a transaction's
// client when called from a write).
func boardDetail(ctx context.Context, c *ent.Client, a actor, b *ent.Board) (*taskwirev1.GetBoardResponse, error) {
	open := c.Task.Query().Where(task.TenantID(a.tenant.ID), task.BoardID(b.ID), task.DeletedAtIsNil())
	var perLane []struct {
		Lane  string `json:"lane"`
		Count int    `json:"count"`
	}
	if err := open.Clone().GroupBy(task.FieldLane).Aggregate(ent.Count()).Scan(ctx, &perLane); err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, l := range perLane {
		counts[l.Lane] = l.Count
	}
	resp := &taskwirev1.GetBoardResponse{
		Board:    boardProto(b),
		Kinds:    kindProtos(boardKinds(b)),
		Sizes:    slices.Sorted(maps.Keys(sizes)),
		HasRules: b.Rules != "",
	}
	for _, l := range Lanes {
		name := string(lanes[l])
		resp.Lanes = append(resp.Lanes, &taskwirev1.LaneInfo{
			Lane: l, WipLimit: int32(b.WipLimits[name]), Count: int32(counts[name]),
		})
	}
	var err error
	if resp.Labels, err = labelTallies(ctx, open.Clone()); err != nil {
		return nil, err
	}
	resp.Projects, err = projectTallies(ctx, open.Clone())
	return resp, err
}

// labelTallies counts the labels of the tasks q matches. Labels are a JSON
// array on each task, which SQLite and PostgreSQL unnest differently, so
// they are counted here rather than in SQL.
func labelTallies(ctx context.Context, q *ent.TaskQuery) ([]*taskwirev1.Tally, error) {
	ts, err := q.Select(task.FieldLabels).All(ctx)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, t := range ts {
		for _, l := range t.Labels {
			counts[l]++
		}
	}
	return tallies(counts), nil
}

// projectTallies counts the projects of the tasks q matches.
func projectTallies(ctx context.Context, q *ent.TaskQuery) ([]*taskwirev1.Tally, error) {
	var rows []struct {
		Project string `json:"project"`
		Count   int    `json:"count"`
	}
	err := q.Where(task.ProjectNEQ("")).GroupBy(task.FieldProject).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Project] = r.Count
	}
	return tallies(counts), nil
}

// tallies orders counts most used first, then by value, keeping at most
// MaxTallies.
func tallies(counts map[string]int) []*taskwirev1.Tally {
	out := make([]*taskwirev1.Tally, 0, len(counts))
	for v, n := range counts {
		out = append(out, &taskwirev1.Tally{Value: v, Count: int32(n)})
	}
	slices.SortFunc(out, func(x, y *taskwirev1.Tally) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Value, y.Value))
	})
	return out[:min(len(out), MaxTallies)]
}

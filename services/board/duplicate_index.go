package board

import (
	"context"
	"slices"

	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasktitletoken"
	"github.com/taskwire/taskwire/internal/titlematch"
)

// maxTokensPerQuery bounds the tokens one look-up of candidateTitles
// names, well under SQLite's and PostgreSQL's limits on parameters.
const maxTokensPerQuery = 500

// candidateTitles returns the number and title of each open task (not
// deleted, not done) on board boardID that may be a likely duplicate of
// one of titles (each given by its words), oldest first: every task whose
// title reaches duplicateThreshold with one of them is there, found
// through the title index (see titlematch and TaskTitleToken), so the
// cost follows the number of candidates, not the size of the board. The
// caller compares them exactly with titleSimilarity, for tasks_create
// (findDuplicates) and tasks_import (splitDuplicates) alike.
func candidateTitles(ctx context.Context, c *ent.Client, a actor, boardID int, titles [][]string) ([]*ent.Task, error) {
	tokens, least, most := probe(titles)
	var out []*ent.Task
	for chunk := range slices.Chunk(tokens, maxTokensPerQuery) {
		found, err := c.Task.Query().
			Where(task.TenantID(a.tenant.ID), task.BoardID(boardID), task.DeletedAtIsNil(), task.LaneNEQ(task.LaneDone),
				withToken(a.tenant.ID, boardID, chunk, least, most)).
			Select(task.FieldNumber, task.FieldTitle).All(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	slices.SortFunc(out, func(x, y *ent.Task) int { return x.Number - y.Number })
	return slices.CompactFunc(out, func(x, y *ent.Task) bool { return x.Number == y.Number }), nil
}

// withToken keeps the tasks of board boardID that have one of tokens in
// their title prefix, with least to most distinct words. It joins the
// task ids the index gives, as a derived table, rather than testing each
// task (ent's HasTitleTokensWith, a correlated EXISTS, or "id IN
// (SELECT …)"): given those, SQLite walks the board's tasks through their
// own index and probes the title index for each, the full scan this index
// is there to avoid; given a derived table, it reads the index first,
// then each task it names by primary key. PostgreSQL plans either well.
func withToken(tenantID, boardID int, tokens []string, least, most int) predicate.Task {
	return func(s *sql.Selector) {
		t := sql.Table(tasktitletoken.Table)
		ids := sql.Select(t.C(tasktitletoken.FieldTaskID)).Distinct().From(t).Where(sql.And(
			sql.EQ(t.C(tasktitletoken.FieldTenantID), tenantID),
			sql.EQ(t.C(tasktitletoken.FieldBoardID), boardID),
			sql.In(t.C(tasktitletoken.FieldToken), anys(tokens)...),
			sql.GTE(t.C(tasktitletoken.FieldWords), least),
			sql.LTE(t.C(tasktitletoken.FieldWords), most),
		)).As("candidate")
		s.Join(ids).On(s.C(task.FieldID), ids.C(tasktitletoken.FieldTaskID))
	}
}

func anys(tokens []string) []any {
	out := make([]any, len(tokens))
	for i, t := range tokens {
		out[i] = t
	}
	return out
}

// probe returns the prefix tokens of titles, sorted and distinct, and the
// range of distinct word counts a title similar to one of them may have.
func probe(titles [][]string) (tokens []string, least, most int) {
	least = -1
	for _, words := range titles {
		set := titlematch.Set(words)
		tokens = append(tokens, titlematch.Prefix(set)...)
		lo, hi := titlematch.Sizes(len(set))
		if least < 0 || lo < least {
			least = lo
		}
		most = max(most, hi)
	}
	slices.Sort(tokens)
	return slices.Compact(tokens), least, most
}

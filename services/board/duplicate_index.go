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

// probeCap is how many titles of a board holding a word candidateTitles
// counts before it takes the word for a common one: enough to tell the
// words worth looking up from the rest, while each count reads at most
// that many index entries.
const probeCap = 32

// candidateTitles returns the number and title of each open task (not
// deleted, not done) on board boardID that may be a likely duplicate of
// one of titles (each given by its words), oldest first: every task whose
// title reaches duplicateThreshold with one of them is there, found
// through the title index (see titlematch and TaskTitleToken), looked up
// by the rarest words of each title on this board, so the cost follows
// the number of candidates, not the size of the board. The caller
// compares them exactly with titleSimilarity, for tasks_create
// (findDuplicates) and tasks_import (splitDuplicates) alike.
func candidateTitles(ctx context.Context, c *ent.Client, a actor, boardID int, titles [][]string) ([]*ent.Task, error) {
	tokens, least, most, err := probe(ctx, c, a, boardID, titles)
	if err != nil {
		return nil, err
	}
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
// their title, with least to most distinct words. It joins the task ids
// the index gives, as a derived table, rather than testing each task
// (ent's HasTitleTokensWith, a correlated EXISTS, or "id IN (SELECT …)"):
// given those, SQLite walks the board's tasks through their own index and
// probes the title index for each, the full scan this index is there to
// avoid; given a derived table, it reads the index first, then each task
// it names by primary key. PostgreSQL plans either well.
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

// probe returns the tokens titles are looked up by, sorted and distinct
// (titlematch.Probe of each: its rarest words on the board), and the range
// of distinct word counts a title similar to one of them may have. It
// counts, for each word of a title that has more words than its look-up
// needs, the board's titles of a size in that range that hold it, up to
// probeCap each: one short read of the index per word.
func probe(ctx context.Context, c *ent.Client, a actor, boardID int, titles [][]string) (tokens []string, least, most int, err error) {
	sets := make([][]string, len(titles))
	least = -1
	for i, words := range titles {
		sets[i] = titlematch.Set(words)
		lo, hi := titlematch.Sizes(len(sets[i]))
		if least < 0 || lo < least {
			least = lo
		}
		most = max(most, hi)
	}
	counts := map[string]int{}
	count := func(word string) int {
		if n, ok := counts[word]; ok || err != nil {
			return n
		}
		var ids []int
		ids, err = c.TaskTitleToken.Query().
			Where(tasktitletoken.TenantID(a.tenant.ID), tasktitletoken.BoardID(boardID), tasktitletoken.Token(word),
				tasktitletoken.WordsGTE(least), tasktitletoken.WordsLTE(most)).
			Limit(probeCap).IDs(ctx)
		counts[word] = len(ids)
		return len(ids)
	}
	for _, set := range sets {
		tokens = append(tokens, titlematch.Probe(set, count)...)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	slices.Sort(tokens)
	return slices.Compact(tokens), least, most, nil
}

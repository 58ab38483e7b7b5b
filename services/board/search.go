package board

import (
	"context"
	"strconv"
	"strings"
	"unicode"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// MaxSearchWords is the most words a search may have: every word must
// match, so more would find nothing anyway.
const MaxSearchWords = 32

// searchName names tasks_search's cursors.
const searchName = "tasks_search"

// The columns a search selects beside the task's own.
const (
	rankColumn    = "search_rank"
	snippetColumn = "search_snippet"
)

// SearchTasks searches the titles and notes of the caller's tasks, best
// match first.
func (s *Service) SearchTasks(ctx context.Context, req *taskwirev1.SearchTasksRequest) (*taskwirev1.SearchTasksResponse, error) {
	return call(ctx, s, req, s.searchTasks)
}

func (s *Service) searchTasks(ctx context.Context, a actor, req *taskwirev1.SearchTasksRequest) (*taskwirev1.SearchTasksResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	words, err := searchWords(req.GetQuery())
	if err != nil {
		return nil, err
	}
	where := []predicate.Task{task.TenantID(a.tenant.ID), task.DeletedAtIsNil()}
	digest := []string{"words=" + strings.Join(words, " "), "include_done=" + strconv.FormatBool(req.GetIncludeDone())}
	if slug := strings.TrimSpace(req.GetBoard()); slug != "" {
		b, err := findBoard(ctx, s.client, a, slug)
		if err != nil {
			return nil, err
		}
		where = append(where, task.BoardID(b.ID))
		digest = append(digest, "board="+strconv.Itoa(b.ID))
	}
	if !req.GetIncludeDone() {
		where = append(where, task.LaneNEQ(task.LaneDone))
	}
	query := cursor.Query(digest...)
	offset, err := s.searchOffset(req.GetCursor(), a, query)
	if err != nil {
		return nil, err
	}
	match := matching(words)
	if spaceless(words) {
		match = containing(words)
	}
	tasks, err := s.client.Task.Query().
		Where(append(where, match)...).
		Order(byRank, task.ByNumber()).
		Offset(offset).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.SearchTasksResponse{}
	if len(tasks) > limit {
		tasks = tasks[:limit]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, searchName, query, strconv.Itoa(offset+limit))
	}
	n, err := lookupNames(ctx, s.client, a, tasks, nil)
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		hit := searchHit(n, t)
		if spaceless(words) {
			hit.Snippet = partSnippet(t.Title, t.Note, words)
		}
		resp.Items = append(resp.Items, hit)
	}
	return resp, nil
}

// searchOffset opens a tasks_search cursor: how many hits came before.
func (s *Service) searchOffset(c string, a actor, query string) (int, error) {
	pos, err := s.cursors.Open(c, a.tenant.ID, searchName, query, 1)
	if err != nil || pos == nil {
		return 0, err
	}
	offset, err := strconv.Atoi(pos[0])
	if err != nil || offset < 0 {
		return 0, domainerr.New(domainerr.Invalid, "cursor is not valid here: leave cursor out to start from the first page")
	}
	return offset, nil
}

// searchWords splits a query into the lowercase words the index holds,
// dropping punctuation, so that no character of a query is taken for the
// search syntax of either database.
func searchWords(query string) ([]string, error) {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	switch {
	case len(words) == 0:
		return nil, domainerr.New(domainerr.Invalid, "query %q has no words to search for: give one or more words, e.g. \"login timeout\"", query)
	case len(words) > MaxSearchWords:
		return nil, domainerr.New(domainerr.Invalid, "query has %d words, more than %d: search for the few words that matter most", len(words), MaxSearchWords)
	}
	return words, nil
}

// matching matches the tasks whose title and note hold every one of words,
// by stem, and selects their rank and snippet. Queries in Chinese, Japanese
// or Korean use containing instead (see spaceless).
func matching(words []string) predicate.Task {
	return func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			postgresMatch(s, words)
			return
		}
		sqliteMatch(s, words)
	}
}

// byRank orders search hits best first.
func byRank(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.OrderBy(sql.Desc(rankColumn))
		return
	}
	s.OrderBy(sql.Asc(rankColumn)) // bm25: the lower, the better
}

func searchHit(n names, t *ent.Task) *taskwirev1.SearchHit {
	return &taskwirev1.SearchHit{
		Ref:     Ref(t.Number),
		Board:   n.boards[t.BoardID],
		Title:   t.Title,
		Lane:    toProto(lanes, t.Lane),
		Snippet: selectedString(t, snippetColumn),
		Trust:   textTrust(n.me, textAuthors(t)),
	}
}

// selectedString returns the text a query selected beside t's columns.
func selectedString(t *ent.Task, column string) string {
	v, err := t.Value(column)
	if err != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

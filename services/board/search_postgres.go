package board

import (
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
)

// postgresMatch searches with PostgreSQL's full-text search: the WHERE and
// the rank read the tasks' stored, weighted words (store.SearchVector, GIN
// indexed), so a title match ranks above a note match, and ts_headline
// cuts the snippet.
func postgresMatch(s *sql.Selector, words []string) {
	cfg := "'" + store.SearchConfig + "'"
	vector := s.C(store.SearchVector)
	text := s.C(task.FieldTitle) + " || ' ' || " + s.C(task.FieldNote)
	query := strings.Join(words, " ")
	tsquery := func(b *sql.Builder) { b.WriteString("plainto_tsquery(" + cfg + ", ").Arg(query).WriteString(")") }
	s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("ts_rank(" + vector + ", ")
		tsquery(b)
		b.WriteString(")")
	}), rankColumn)
	s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("ts_headline(" + cfg + ", " + text + ", ")
		tsquery(b)
		b.WriteString(`, 'StartSel=**, StopSel=**, MaxWords=20, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "')`)
	}), snippetColumn)
	s.Where(sql.P(func(b *sql.Builder) {
		b.WriteString(vector + " @@ ")
		tsquery(b)
	}))
}

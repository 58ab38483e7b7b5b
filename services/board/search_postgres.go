package board

import (
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
)

// postgresMatch searches with PostgreSQL's full-text search: the WHERE
// uses the expression of the GIN index store.Open creates, the rank weighs
// a title match above a note match, and ts_headline cuts the snippet.
func postgresMatch(s *sql.Selector, words []string) {
	cfg := "'" + store.SearchConfig + "'"
	title, note := s.C(task.FieldTitle), s.C(task.FieldNote)
	text := title + " || ' ' || " + note
	query := strings.Join(words, " ")
	tsquery := func(b *sql.Builder) { b.WriteString("plainto_tsquery(" + cfg + ", ").Arg(query).WriteString(")") }
	s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("ts_rank(setweight(to_tsvector(" + cfg + ", " + title + "), 'A') || setweight(to_tsvector(" + cfg + ", " + note + "), 'B'), ")
		tsquery(b)
		b.WriteString(")")
	}), rankColumn)
	s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("ts_headline(" + cfg + ", " + text + ", ")
		tsquery(b)
		b.WriteString(`, 'StartSel=**, StopSel=**, MaxWords=20, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "')`)
	}), snippetColumn)
	s.Where(sql.P(func(b *sql.Builder) {
		b.WriteString("to_tsvector(" + cfg + ", " + text + ") @@ ")
		tsquery(b)
	}))
}

package board

import (
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
)

// sqliteMatch searches SQLite's FTS5 index (store.SearchTable, porter
// stemmer): it joins the index to the tasks, keeps the rows that hold every
// word, ranks them with bm25 (a title match counting more than a note
// match) and cuts a snippet from the best matching column.
func sqliteMatch(s *sql.Selector, words []string) {
	fts := sql.Table(store.SearchTable)
	s.Join(fts).On(s.C(task.FieldID), fts.C("rowid"))
	s.AppendSelectExprAs(sql.Expr("bm25("+store.SearchTable+", 4.0, 1.0)"), rankColumn)
	s.AppendSelectExprAs(sql.Expr("snippet("+store.SearchTable+", -1, '**', '**', '…', 16)"), snippetColumn)
	s.Where(sql.P(func(b *sql.Builder) {
		b.Ident(store.SearchTable).WriteString(" MATCH ").Arg(ftsQuery(words))
	}))
}

// ftsQuery is an FTS5 query for all of words: each one quoted, so it is
// only ever a word, never an operator or a column name.
func ftsQuery(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " ")
}

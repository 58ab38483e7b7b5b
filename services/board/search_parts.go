package board

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
)

// minTrigram is the shortest word a trigram index can look up.
const minTrigram = 3

// spaceless reports whether any of words is written in Chinese, Japanese or
// Korean. Those languages do not put spaces between words (Korean sticks
// particles to them), so the stemmed index holds a whole phrase as one
// word and finds 修复登录超时问题 only by all of it: such queries look for
// each word as a part of the text instead, through the trigram index.
func spaceless(words []string) bool {
	for _, w := range words {
		for _, r := range w {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				return true
			}
		}
	}
	return false
}

// containing matches the tasks whose title or note holds every one of
// words as a part (no stemming), and selects their rank: a word in the
// title counts four times one in the note, as in the stemmed search.
func containing(words []string) predicate.Task {
	return func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			postgresContaining(s, words)
			return
		}
		sqliteContaining(s, words)
	}
}

// sqliteContaining looks the words of three or more characters up in the
// trigram index (store.TrigramTable) and ranks by its bm25. A shorter word
// (修复: two characters, most Chinese words) is below what a trigram can
// find, so it is checked with instr on the rows the other words found, or,
// when every word is that short, on the caller's tasks that pass the other
// filters (tenant, board, lane): a scan of one tenant's tasks, never of the
// whole database, ranked by where the words stand.
func sqliteContaining(s *sql.Selector, words []string) {
	long, short := splitByLength(words)
	title, note := s.C(task.FieldTitle), s.C(task.FieldNote)
	if len(long) > 0 {
		fts := sql.Table(store.TrigramTable)
		s.Join(fts).On(s.C(task.FieldID), fts.C("rowid"))
		s.AppendSelectExprAs(sql.Expr("bm25("+store.TrigramTable+", 4.0, 1.0)"), rankColumn)
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(store.TrigramTable).WriteString(" MATCH ").Arg(ftsQuery(long))
		}))
	} else {
		s.AppendSelectExprAs(placeRank(short, func(b *sql.Builder, col, w string) {
			b.WriteString("-(instr(" + store.LowerFunc + "(" + col + "), ").Arg(w).WriteString(") > 0)")
		}, title, note), rankColumn)
	}
	for _, w := range short {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("instr(" + store.LowerFunc + "(" + title + " || ' ' || " + note + "), ").Arg(w).WriteString(") > 0")
		}))
	}
}

// postgresContaining matches each word with LIKE on the expression of the
// trigram GIN index store.Open creates, and ranks by where the words stand.
// A word with upper and lower case letters takes ILIKE; the others (every
// CJK word) take LIKE, which is three times as fast when PostgreSQL has to
// read the rows: for a word of one or two characters pg_trgm has no
// trigram to look up, so it scans the tenant's tasks, as SQLite does.
func postgresContaining(s *sql.Selector, words []string) {
	title, note := s.C(task.FieldTitle), s.C(task.FieldNote)
	text := title + " || ' ' || " + note
	for _, w := range words {
		like := " LIKE "
		if strings.ToUpper(w) != w {
			like = " ILIKE "
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("(" + text + ")" + like).Arg("%" + w + "%")
		}))
	}
	s.AppendSelectExprAs(placeRank(words, func(b *sql.Builder, col, w string) {
		b.WriteString("(strpos(lower(" + col + "), ").Arg(w).WriteString(") > 0)::int")
	}, title, note), rankColumn)
}

// placeRank sums, for each word, four times hit(title) and once hit(note).
func placeRank(words []string, hit func(b *sql.Builder, col, w string), title, note string) sql.Querier {
	return sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("(0")
		for _, w := range words {
			b.WriteString(" + 4 * ")
			hit(b, title, w)
			b.WriteString(" + ")
			hit(b, note, w)
		}
		b.WriteString(")")
	})
}

// splitByLength parts words into those a trigram index can look up and
// the shorter ones.
func splitByLength(words []string) (long, short []string) {
	for _, w := range words {
		if utf8.RuneCountInString(w) >= minTrigram {
			long = append(long, w)
		} else {
			short = append(short, w)
		}
	}
	return long, short
}

// partSnippet cuts a passage around the first of words in the note, or
// else the title, with every word in bold, as the stemmed search's
// snippets are: the indexes of parts have no snippet function of their own
// that knows about short words.
func partSnippet(title, note string, words []string) string {
	text := []rune(note)
	at := firstPart(text, words)
	if at < 0 {
		text = []rune(title)
		at = max(firstPart(text, words), 0)
	}
	from, to := max(at-snippetBefore, 0), min(at+snippetAfter, len(text))
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	for i := from; i < to; {
		if n := partAt(text[:to], i, words); n > 0 {
			b.WriteString("**" + string(text[i:i+n]) + "**")
			i += n
			continue
		}
		b.WriteRune(text[i])
		i++
	}
	if to < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// How many characters a part snippet shows around its first match.
const (
	snippetBefore = 16
	snippetAfter  = 48
)

// firstPart returns where in text the first of words starts, or -1.
func firstPart(text []rune, words []string) int {
	for i := range text {
		if partAt(text, i, words) > 0 {
			return i
		}
	}
	return -1
}

// partAt returns the length, in characters, of the longest of words that
// text holds at i, ignoring case, or 0.
func partAt(text []rune, i int, words []string) int {
	best := 0
	for _, w := range words {
		n := 0
		for _, r := range w {
			if i+n >= len(text) || unicode.ToLower(text[i+n]) != r {
				n = -1
				break
			}
			n++
		}
		best = max(best, n)
	}
	return best
}

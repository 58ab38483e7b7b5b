package store

import (
	"context"
	"database/sql"
	"strings"
)

// ftsIndex is an FTS5 index of the tasks' titles and notes, kept in step
// with the tasks table by triggers.
type ftsIndex struct {
	name     string
	tokenize string
}

// sqliteIndexes are the two indexes tasks_search reads: the stemmed one
// finds "migrations" by "migration"; the trigram one finds 登录超时 inside
// 修复登录超时问题, which unicode61 holds as one word.
var sqliteIndexes = []ftsIndex{
	{SearchTable, "porter unicode61 remove_diacritics 2"},
	{TrigramTable, "trigram"},
}

// objects names the table and triggers of x, all there when it is set up.
func (x ftsIndex) objects() []string {
	return []string{x.name, x.name + "_insert", x.name + "_delete", x.name + "_update"}
}

// statements create x's table and triggers. Each is idempotent.
func (x ftsIndex) statements() []string {
	r := strings.NewReplacer("{x}", x.name, "{tokenize}", x.tokenize)
	return []string{
		r.Replace(`CREATE VIRTUAL TABLE IF NOT EXISTS {x} USING fts5(title, note, content='tasks', content_rowid='id', tokenize='{tokenize}')`),
		r.Replace(`CREATE TRIGGER IF NOT EXISTS {x}_insert AFTER INSERT ON tasks BEGIN
			INSERT INTO {x}(rowid, title, note) VALUES (new.id, new.title, new.note);
		END`),
		r.Replace(`CREATE TRIGGER IF NOT EXISTS {x}_delete AFTER DELETE ON tasks BEGIN
			INSERT INTO {x}({x}, rowid, title, note) VALUES ('delete', old.id, old.title, old.note);
		END`),
		r.Replace(`CREATE TRIGGER IF NOT EXISTS {x}_update AFTER UPDATE OF title, note ON tasks BEGIN
			INSERT INTO {x}({x}, rowid, title, note) VALUES ('delete', old.id, old.title, old.note);
			INSERT INTO {x}(rowid, title, note) VALUES (new.id, new.title, new.note);
		END`),
	}
}

// setupSQLiteSearch creates each index that is missing. When its table or
// a trigger was missing (a new database, an upgrade from a build without
// the index, or a migration that rebuilt the tasks table and so dropped
// its triggers) the index is rebuilt from the tasks.
func setupSQLiteSearch(ctx context.Context, tx *sql.Tx) error {
	for _, x := range sqliteIndexes {
		names := x.objects()
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN (?, ?, ?, ?)`,
			names[0], names[1], names[2], names[3]).Scan(&n)
		if err != nil {
			return err
		}
		stmts := x.statements()
		if n < len(names) {
			stmts = append(stmts, `INSERT INTO `+x.name+`(`+x.name+`) VALUES ('rebuild')`)
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
	}
	return nil
}

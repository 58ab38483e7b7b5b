package dbcopy_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/taskwire/taskwire/internal/dbcopy"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// BenchmarkCopy10000Tasks times `taskwire copy` of a board of 10,000
// tasks, with what the tools write beside each (an activity entry, an
// audit event, a comment and the title's words): the downtime of the move
// that the "Outgrowing one machine" page quotes. Each round copies into a
// new, empty schema, migration and check included.
func BenchmarkCopy10000Tasks(b *testing.B) {
	storetest.DSN(b, storetest.Postgres) // skips without PostgreSQL
	src := bigSource(b, 10000)
	var rows int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		to := storetest.DSN(b, storetest.Postgres)
		b.StartTimer()
		r, err := dbcopy.Copy(context.Background(), dbcopy.Config{From: src, To: to, Log: storetest.Logger()})
		if err != nil {
			b.Fatal(err)
		}
		rows = r.Rows()
	}
	b.ReportMetric(float64(rows), "rows")
}

// bigSource is a migrated SQLite database holding one tenant whose board
// has tasks tasks, written in SQL for speed.
func bigSource(b *testing.B, tasks int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "taskwire.db")
	client, err := store.Open(context.Background(), "sqlite:"+path, store.Logger(storetest.Logger()))
	if err != nil {
		b.Fatal(err)
	}
	client.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const now = `strftime('%Y-%m-%d %H:%M:%f', 'now')`
	for _, s := range []string{
		`INSERT INTO tenants (id, slug, name, created_at) VALUES (1, 'acme', 'Acme', ` + now + `)`,
		`INSERT INTO members (id, handle, display_name, kind, role, created_at, tenant_id) VALUES (1, 'ada', 'Ada', 'human', 'owner', ` + now + `, 1)`,
		`INSERT INTO boards (id, slug, name, is_default, wip_limits, created_at, tenant_id) VALUES (1, 'default', 'Default', true, '{}', ` + now + `, 1)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		 INSERT INTO tasks (id, number, title, note, assignee_ids, created_at, updated_at, labels, text_author_ids, board_id, tenant_id, created_by_id)
		 SELECT i, i, 'Move the billing export to the new queue ' || i, printf('%.200c', 'n'), '[]', ` + now + `, ` + now + `, '["ops","db"]', '[1]', 1, 1, 1 FROM n`,
		`INSERT INTO activities (actor_kind, action, detail, created_at, tenant_id, actor_id, task_id) SELECT 'human', 'created', '{"lane":"backlog"}', created_at, 1, 1, id FROM tasks`,
		`INSERT INTO audit_events (occurred_at, member_id, member_handle, method, tool, targets, outcome, tenant_id) SELECT created_at, 1, 'ada', 'tools/call', 'tasks_create', json_array('T-' || id), 'ok', 1 FROM tasks`,
		`INSERT INTO comments (number, body, created_at, tenant_id, author_id, task_id) SELECT id, 'Looked at it; the queue takes it.', created_at, 1, 1, id FROM tasks`,
		`INSERT INTO task_title_tokens (board_id, token, words, task_id, tenant_id) SELECT 1, w.value, 8, t.id, 1 FROM tasks t, json_each('["move","billing","export","queue"]') w`,
	} {
		if _, err := db.Exec(s, tasks); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

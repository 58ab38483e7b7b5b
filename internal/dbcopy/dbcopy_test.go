package dbcopy_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taskwire/taskwire/internal/dbcopy"
	"github.com/taskwire/taskwire/internal/ent/migrate"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// seededTables are the tables seed writes to: the copy must carry each.
var seededTables = []string{
	"tenants", "members", "boards", "tasks", "task_links", "task_title_tokens", "comments", "context_notes",
	"work_items", "activities", "audit_events", "tokens", "signing_keys", "decisions",
}

// TestCopy copies a serve's database, while it runs, into an empty
// PostgreSQL database, then copies it again into the same one and changes
// the copy behind Verify's back.
func TestCopy(t *testing.T) {
	to := storetest.DSN(t, storetest.Postgres) // skips without PostgreSQL
	src := seed(t)
	ctx := context.Background()
	t.Run("copies every table", func(t *testing.T) {
		r, err := dbcopy.Copy(ctx, dbcopy.Config{From: src.db, To: to, Log: storetest.Logger()})
		if err != nil {
			t.Fatalf("Copy = %v", err)
		}
		checkCopied(t, r)
		checkFreshIDs(t, to)
	})
	t.Run("refuses a target holding rows", func(t *testing.T) {
		before := counts(t, to)
		_, err := dbcopy.Copy(ctx, dbcopy.Config{From: src.db, To: to, Log: storetest.Logger()})
		if err == nil || !strings.Contains(err.Error(), "already holds rows") || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("Copy into a target holding rows = %v, want a refusal saying it holds rows and nothing was written", err)
		}
		if after := counts(t, to); after != before {
			t.Errorf("rows after the refused copy = %s, want %s as before", after, before)
		}
	})
	t.Run("verify finds changes", func(t *testing.T) {
		exec(t, to, `DELETE FROM tasks WHERE title = 'after the copy'`)
		exec(t, to, `UPDATE comments SET body = body || '.'`)
		exec(t, to, `DELETE FROM context_notes`)
		checkMismatch(t, src.db, to, "comments", "context_notes")
	})
}

// checkCopied: every table matches its source, rows and checksums, and
// the tables seed wrote to hold rows.
func checkCopied(t *testing.T, r *dbcopy.Report) {
	t.Helper()
	if got, want := len(r.Tables), len(migrate.Tables); got != want {
		t.Errorf("Copy checked %d tables, want %d", got, want)
	}
	rows := map[string]int64{}
	for _, c := range r.Tables {
		rows[c.Table] = c.Target.Rows
		if !c.OK() {
			t.Errorf("table %s: source %+v, target %+v; want the same", c.Table, c.Source, c.Target)
		}
	}
	for _, name := range seededTables {
		if rows[name] == 0 {
			t.Errorf("table %s holds no rows after the copy, want those seed wrote", name)
		}
	}
	if rows["signing_keys"] < 2 {
		t.Errorf("signing_keys holds %d rows, want the first key and the rotated one", rows["signing_keys"])
	}
}

// checkFreshIDs: a task added to the copy gets an id above those copied.
func checkFreshIDs(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var max, next int64
	if err := conn.QueryRow(ctx, `SELECT max(id) FROM tasks`).Scan(&max); err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO tasks (number, title, note, lane, kind, assignee_ids, version, created_at, updated_at, labels, project, position, flagged, flag_reason, text_author_ids, board_id, tenant_id, created_by_id)
		SELECT number + 100, 'after the copy', '', lane, kind, assignee_ids, 1, now(), now(), labels, '', 0, false, '', text_author_ids, board_id, tenant_id, created_by_id FROM tasks WHERE id = $1 RETURNING id`, max).Scan(&next)
	if err != nil {
		t.Fatalf("insert a task after the copy: %v", err)
	}
	if next <= max {
		t.Errorf("a task added after the copy got id %d, want one above the highest copied, %d", next, max)
	}
}

// checkMismatch: Verify finds the tables bad, and only those, different
// in the target, and its report says so on their lines.
func checkMismatch(t *testing.T, from, to string, bad ...string) {
	t.Helper()
	r, err := dbcopy.Verify(context.Background(), from, to)
	if !errors.Is(err, dbcopy.ErrMismatch) || !strings.Contains(err.Error(), strings.Join(bad, ", ")) {
		t.Errorf("Verify after changing the target = %v, want ErrMismatch naming %v", err, bad)
	}
	if r == nil {
		t.Fatal("Verify returned no report")
	}
	var out strings.Builder
	r.Print(&out)
	for _, want := range []string{"comments", "MISMATCH (checksum)", "context_notes", "MISMATCH (rows)", "tasks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
	for _, c := range r.Tables {
		if isBad := slices.Contains(bad, c.Table); c.OK() == isBad {
			t.Errorf("table %s OK = %v, want %v", c.Table, c.OK(), !isBad)
		}
	}
}

// counts lists the rows of every table of dsn.
func counts(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	for _, tb := range migrate.Tables {
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+tb.Name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		b.WriteString(tb.Name + "=" + strconv.FormatInt(n, 10) + " ")
	}
	return b.String()
}

func exec(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

package board_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// BenchmarkCreateTask measures tasks_create, near-duplicate check
// included, on a board of 1,000 and of 20,000 open tasks: with the title
// index the two cost the same, also when every title holds the project's
// name (project=zenbridge).
//
//	go test ./services/board -run '^$' -bench CreateTask -benchtime 200x
func BenchmarkCreateTask(b *testing.B) {
	for _, backend := range storetest.Backends() {
		for _, tc := range []struct {
			open    int
			project string
		}{{1_000, ""}, {20_000, ""}, {1_000, "zenbridge"}, {20_000, "zenbridge"}} {
			name := fmt.Sprintf("%s/open=%d", backend, tc.open)
			if tc.project != "" {
				name += "/project=" + tc.project
			}
			title := func(r *rand.Rand) string { return strings.TrimSpace(tc.project + " " + benchTitle(r)) }
			b.Run(name, func(b *testing.B) {
				dsn := storetest.DSN(b, backend)
				c, err := store.Open(context.Background(), dsn, store.Logger(storetest.Logger()))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				e := newEnv(b, c)
				r := rand.New(rand.NewPCG(1, 2))
				fillBoard(b, c, e, tc.open, r, title)
				analyze(b, backend, dsn)
				b.ResetTimer()
				for b.Loop() {
					if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: title(r)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// fillBoard adds n open tasks to acme's board main, in one transaction.
func fillBoard(b *testing.B, c *ent.Client, e *env, n int, r *rand.Rand, title func(*rand.Rand) string) {
	b.Helper()
	ctx := tenantscope.NewContext(context.Background(), e.acme.ID)
	tx, err := c.Tx(ctx)
	if err != nil {
		b.Fatal(err)
	}
	main := tx.Board.Query().Where(board.TenantID(e.acme.ID), board.Slug("main")).OnlyX(ctx)
	alice := tx.Member.Query().Where(member.TenantID(e.acme.ID), member.Handle("alice")).OnlyX(ctx)
	for first := 1; first <= n; first += 500 {
		var tasks []*ent.TaskCreate
		for i := first; i < first+500 && i <= n; i++ {
			tasks = append(tasks, tx.Task.Create().SetTenantID(e.acme.ID).SetBoardID(main.ID).SetNumber(i).
				SetTitle(title(r)).SetCreatedByID(alice.ID))
		}
		tx.Task.CreateBulk(tasks...).ExecX(ctx)
	}
	tx.Tenant.UpdateOneID(e.acme.ID).SetTaskSeq(n).ExecX(ctx)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// analyze gathers PostgreSQL's statistics on the filled board, as its
// autovacuum does soon after so many inserts: without them it takes the
// tables for empty and plans for that. SQLite gets none, as in service,
// where nothing runs ANALYZE.
func analyze(b *testing.B, backend storetest.Backend, dsn string) {
	b.Helper()
	if backend != storetest.Postgres {
		return
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("ANALYZE"); err != nil {
		b.Fatal(err)
	}
}

// common are words many task titles share.
var common = []string{"fix", "add", "the", "bug", "in", "to", "for", "update", "remove", "page"}

// benchTitle is a title of one or two common words and three to six of a
// vocabulary of 5,000.
func benchTitle(r *rand.Rand) string {
	var words []string
	for range 1 + r.IntN(2) {
		words = append(words, common[r.IntN(len(common))])
	}
	for range 3 + r.IntN(4) {
		words = append(words, fmt.Sprintf("w%d", r.IntN(5000)))
	}
	return strings.Join(words, " ")
}

package board_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// BenchmarkSearchTasks measures tasks_search for a word in about one
// title in ten (so the matches grow with the board) on a board of 1,000
// and of 20,000 open tasks, first page of 25.
//
//	go test ./services/board -run '^$' -bench SearchTasks -benchtime 200x
func BenchmarkSearchTasks(b *testing.B) {
	for _, backend := range storetest.Backends() {
		for _, open := range []int{1_000, 20_000} {
			b.Run(fmt.Sprintf("%s/open=%d", backend, open), func(b *testing.B) {
				dsn := storetest.DSN(b, backend)
				c, err := store.Open(context.Background(), dsn, store.Logger(storetest.Logger()))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				e := newEnv(b, c)
				fillBoard(b, c, e, open, rand.New(rand.NewPCG(1, 2)), benchTitle)
				analyze(b, backend, dsn)
				b.ResetTimer()
				for b.Loop() {
					resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: "update"})
					if err != nil {
						b.Fatal(err)
					}
					if len(resp.Items) != 25 {
						b.Fatalf("search found %d on the first page, want 25", len(resp.Items))
					}
				}
			})
		}
	}
}

package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/hook"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestImportCancelledOnHangUp: a client that hangs up during tasks_import
// (the 2026-07-28 cancellation: it closes the response stream) cancels the
// worker's gRPC call, the import stops, and its transaction rolls back, so
// no task of it is committed.
func TestImportCancelledOnHangUp(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			// Hold the import at its 30th task until its context ends, so
			// the hang-up surely lands mid-import; ent hooks see each insert.
			creates := holdImportAt(h.Sys.DB, 30)

			callCtx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			var reports atomic.Int32
			cs, _ := h.Client(t, h.Token, &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					if reports.Add(1) == 1 {
						hangUp()
					}
				},
			})
			params := heldImport(7)
			_, err := cs.CallTool(callCtx, params)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool after hang-up = %v, want context.Canceled", err)
			}

			checkImportCancelled(t, h.Logs, h.Sys.DB)
			// The import stopped where the cancellation found it: at the
			// held insert, or earlier between two inserts.
			if n := creates.Load(); n > 30 {
				t.Errorf("the import inserted %d tasks after the hang-up, want it stopped by the 30th", n)
			}

			// The board still works, and numbering resumes where it was.
			created := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "After the hang-up"})
			if ref := created["task"].(map[string]any)["ref"]; ref != "T-1" {
				t.Errorf("next task after a cancelled import = %v, want T-1", ref)
			}
		})
	}
}

// heldImport is a tasks_import of 100 tasks titled "Never committed N",
// the import holdImportAt holds, reporting progress to token.
func heldImport(token any) *mcp.CallToolParams {
	drafts := make([]map[string]any, 100)
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("Never committed %d", i+1)}
	}
	params := &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{"tasks": drafts}}
	params.SetProgressToken(token)
	return params
}

// checkImportCancelled waits until the worker logging to logs ended the
// held import as cancelled, and checks that db has none of its tasks: its
// transaction rolled back.
func checkImportCancelled(t *testing.T, logs *nodetest.LogSink, db *ent.Client) {
	t.Helper()
	poll.Until(t, 10*time.Second, "the worker to end the import as cancelled", func() bool {
		return logs.Has(map[string]string{"msg": "rpc", "method": "/taskwire.v1.BoardService/ImportTasks", "code": "Canceled"})
	})
	n, err := db.Task.Query().Where(task.TitleHasPrefix("Never committed")).Count(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil || n != 0 {
		t.Errorf("tasks of the cancelled import committed = %d, %v; want 0", n, err)
	}
}

// holdImportAt makes the import's nth task insert wait until its context
// ends, so a cancellation surely lands mid-import (ent hooks see each
// insert). The counter tells how many of its inserts were attempted.
func holdImportAt(db *ent.Client, n int32) *atomic.Int32 {
	var creates atomic.Int32
	db.Task.Use(func(next ent.Mutator) ent.Mutator {
		return hook.TaskFunc(func(ctx context.Context, m *ent.TaskMutation) (ent.Value, error) {
			// Only the import's inserts count: when the hang-up lands
			// before the nth, a later tasks_create must not be held.
			title, _ := m.Title()
			if m.Op().Is(ent.OpCreate) && strings.HasPrefix(title, "Never committed") && creates.Add(1) == n {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next.Mutate(ctx, m)
		})
	})
	return &creates
}

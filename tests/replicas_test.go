package tests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestReplicas runs a conversation whose requests alternate between two
// front doors sharing one worker: nothing depends on which replica
// answers. An import's progress reaches the replica holding its stream,
// and a confirmation asked for by one replica is accepted by the other.
func TestReplicas(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			c := nodetest.StartCluster(t, s)
			var mu sync.Mutex
			var progress []*mcp.ProgressNotificationParams
			cs, alt := c.Client(t, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, r.Params)
					mu.Unlock()
				},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				},
			})
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": fmt.Sprintf("Task %d", i+1)})
			}
			drafts := make([]map[string]any, 50)
			for i := range drafts {
				drafts[i] = map[string]any{"title": fmt.Sprintf("Imported %d", i+1)}
			}
			params := &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{"tasks": drafts}}
			params.SetProgressToken("p")
			if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
				t.Fatalf("tasks_import = %v, %v", res, err)
			}
			awaitProgress(t, &mu, &progress, 50)
			mu.Lock()
			checkProgress(t, progress, "p", 50)
			mu.Unlock()

			// input_required from one replica, the confirmed retry at the other.
			nodetest.CallOK(t, cs, "tasks_delete", map[string]any{"ref": "T-2"})
			list := nodetest.CallOK(t, cs, "tasks_list", map[string]any{"limit": 100})
			if n := len(list["items"].([]any)); n != 52 {
				t.Errorf("tasks after deleting one of 53 = %d, want 52", n)
			}
			for i := range alt.Served {
				if n := alt.Served[i].Load(); n < 3 {
					t.Errorf("front door %d served %d requests, want the conversation spread over both", i, n)
				}
			}
		})
	}
}

// TestReplicaHangUpCancelsWorker: a client hanging up on a front door
// cancels the work in the separate worker.
func TestReplicaHangUpCancelsWorker(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	holdImportAt(c.DB, 30)
	callCtx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	var reports atomic.Int32
	cs, _ := c.Client(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			if reports.Add(1) == 1 {
				hangUp()
			}
		},
	})
	params := heldImport(1)
	if _, err := cs.CallTool(callCtx, params); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after hang-up = %v, want context.Canceled", err)
	}
	checkImportCancelled(t, c.Logs, c.DB)
}

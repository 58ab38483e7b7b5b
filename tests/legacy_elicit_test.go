package tests

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLegacyDeleteConfirmedAcrossReplicas: an older client that declared
// elicitation gets a real elicitation/create request on the stream of its
// tasks_delete call; its answer, POSTed to the other front door, reaches
// the one holding the call, which then deletes the task.
func TestLegacyDeleteConfirmedAcrossReplicas(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			c := nodetest.StartCluster(t, nodetest.Setups()[0])
			var asked atomic.Int32
			var answer atomic.Value
			answer.Store("decline")
			alt := nodetest.NewAlternate(c.Fronts)
			rec := nodetest.NewWireRecorder(t, c.Token, version, alt)
			cl := mcp.NewClient(&mcp.Implementation{Name: "legacy-elicit", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if !strings.Contains(r.Params.Message, "Delete task T-1?") {
						t.Errorf("elicitation message = %q, want the question about T-1", r.Params.Message)
					}
					a := answer.Load().(string)
					return &mcp.ElicitResult{Action: a, Content: map[string]any{"confirm": a == "accept"}}, nil
				},
			})
			cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint: c.Endpoint, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1,
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Old client's task"})

			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_delete", Arguments: map[string]any{"ref": "T-1"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "did not confirm") {
				t.Fatalf("declined delete = %v, %v; want an isError result", res, err)
			}
			answer.Store("accept")
			nodetest.CallOK(t, cs, "tasks_delete", map[string]any{"ref": "T-1"})
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-1"}})
			if err != nil || !res.IsError {
				t.Errorf("tasks_get after the confirmed delete = %v, %v; want it gone", res, err)
			}
			if asked.Load() != 2 {
				t.Errorf("the person was asked %d times, want 2", asked.Load())
			}
		})
	}
}

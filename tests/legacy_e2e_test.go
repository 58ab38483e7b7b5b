package tests

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLegacyEndToEnd drives a whole Taskwire with the go-sdk client
// speaking 2025-06-18 and 2025-11-25: the initialize handshake, a sealed
// session carried on every request, tools/list, tool calls and an
// import's rising progress over SSE, then DELETE when the client closes.
// Every message the server sends is checked against the schema of the
// revision the session speaks.
func TestLegacyEndToEnd(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			for _, version := range []string{"2025-06-18", "2025-11-25"} {
				t.Run(version, func(t *testing.T) { runLegacySession(t, h, version) })
			}
		})
	}
}

func runLegacySession(t *testing.T, h *nodetest.Harness, version string) {
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	cs, rec := h.LegacyClient(t, version, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Errorf("negotiated version = %q, want %q", got, version)
	}
	if cs.ID() == "" || len(rec.Sent("initialize")) != 1 || len(rec.Sent("server/discover")) != 0 {
		t.Errorf("session %q, %d initialize answers, %d discover answers; want a session from one initialize",
			cs.ID(), len(rec.Sent("initialize")), len(rec.Sent("server/discover")))
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	created := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "From an older client (" + version + ")"})
	if ref, _ := created["task"].(map[string]any)["ref"].(string); !strings.HasPrefix(ref, "T-") {
		t.Errorf("tasks_create = %v, want a task with a ref", created)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("Ping: %v", err)
	}

	drafts := make([]map[string]any, 60)
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("Imported %s item%03d", version, i+1)}
	}
	params := &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{"tasks": drafts}}
	params.SetProgressToken("import-" + version)
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("tasks_import = %v, %v", res, err)
	}
	awaitProgress(t, &mu, &progress, 60)
	mu.Lock()
	checkProgress(t, progress, "import-"+version, 60)
	mu.Unlock()

	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if got := rec.StatusOf(http.MethodDelete); got != http.StatusNoContent {
		t.Errorf("DELETE on close answered %d, want 204", got)
	}
}

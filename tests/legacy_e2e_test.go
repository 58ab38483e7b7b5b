package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLegacyEndToEnd drives a whole Taskwire with the go-sdk client
// speaking 2025-06-18 and 2025-11-25: the initialize handshake, a sealed
// session carried on every request, tools/list, tool calls and an
// import's rising progress over SSE, then DELETE when the client closes.
// Every message the server sends is checked against the schema of the
// revision the session speaks.
func TestLegacyEndToEnd(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			h := startHarness(t, s)
			for _, version := range []string{"2025-06-18", "2025-11-25"} {
				t.Run(version, func(t *testing.T) { runLegacySession(t, h, version) })
			}
		})
	}
}

func runLegacySession(t *testing.T, h *harness, version string) {
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	cs, rec := h.legacyClient(t, version, &mcp.ClientOptions{
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
	if cs.ID() == "" || len(rec.sent("initialize")) != 1 || len(rec.sent("server/discover")) != 0 {
		t.Errorf("session %q, %d initialize answers, %d discover answers; want a session from one initialize",
			cs.ID(), len(rec.sent("initialize")), len(rec.sent("server/discover")))
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	created := callOK(t, cs, "tasks_create", map[string]any{"title": "From an older client (" + version + ")"})
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
	if got := rec.statusOf(http.MethodDelete); got != http.StatusNoContent {
		t.Errorf("DELETE on close answered %d, want 204", got)
	}
}

// legacyClient connects the go-sdk client at version, a revision before
// 2026-07-28, so that it starts with initialize.
func (h *harness) legacyClient(t *testing.T, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *wireRecorder) {
	t.Helper()
	rec := &wireRecorder{t: t, token: h.token, version: version, base: http.DefaultTransport}
	c := mcp.NewClient(&mcp.Implementation{Name: "taskwire-e2e-legacy", Version: "1.0.0"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             h.sys.Endpoint,
		HTTPClient:           &http.Client{Transport: rec},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

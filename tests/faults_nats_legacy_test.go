package tests

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// legacyImports adds to l a 2025-11-25 session (the go-sdk client) on the
// front door at addr importing with a progressToken, whose messages the
// wire recorder checks against that revision's schema.
func (l *natsLoad) legacyImports(t *testing.T, d *deployment, addr, token string) {
	t.Helper()
	const version = "2025-11-25"
	var mu sync.Mutex // guards the outcomes the handler fills in
	calls := map[any]*callOutcome{}
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		switch o := calls[req.Params.ProgressToken]; {
		case o == nil:
		case strings.Contains(req.Params.Message, "could not be relayed"):
			o.warned = true
		default:
			o.progress = append(o.progress, time.Now())
		}
	}}
	rec := nodetest.NewWireRecorder(t, token, version, http.DefaultTransport)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "taskwire-faults-legacy", Version: "1.0.0"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/api/mcp", HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("legacy Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	l.loop(func(n int) {
		token := fmt.Sprintf("legacy-%d", n)
		o := &callOutcome{start: time.Now(), legacy: true, guard: &mu}
		mu.Lock()
		calls[token] = o
		mu.Unlock()
		params := &mcp.CallToolParams{Name: "tasks_import", Arguments: importArgs(fmt.Sprintf("Legacy %d", n), 20)}
		params.SetProgressToken(token)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := cs.CallTool(ctx, params)
		cancel()
		mu.Lock()
		o.end = time.Now()
		switch {
		case err != nil:
			o.failure = err.Error()
		case res.IsError:
			o.failure = "isError: " + nodetest.Text(res)
		default:
			o.ok = true
		}
		mu.Unlock()
		l.mu.Lock()
		l.legacy = append(l.legacy, o)
		l.mu.Unlock()
	})
}

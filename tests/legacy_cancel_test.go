package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLegacyCancelReachesOtherReplica: an older client's call runs on one
// front door while its notifications/cancelled is POSTed to the other; the
// call stops in the worker, nothing of it is committed, and the client's
// stream ends without a response. The client keeps reading its stream
// throughout, so the hang-up path cannot be what cancels it.
func TestLegacyCancelReachesOtherReplica(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	holdImportAt(c.DB, 30)
	session := legacyInitialize(t, c, c.Fronts[0])

	drafts := make([]map[string]any, 100)
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("Never committed %d", i+1)}
	}
	args, _ := json.Marshal(drafts)
	resp := legacyPost(t, c, c.Fronts[0], session,
		`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"tasks_import","arguments":{"tasks":`+string(args)+`},"_meta":{"progressToken":"imp"}}}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("legacy tasks_import = %d %s, want a 200 SSE stream", resp.StatusCode, ct)
	}
	events := bufio.NewReader(resp.Body)
	line, err := events.ReadString('\n')
	for err == nil && !strings.HasPrefix(line, "data:") { // wait for the first progress
		line, err = events.ReadString('\n')
	}
	if err != nil || !strings.Contains(line, "notifications/progress") {
		t.Fatalf("first event = %q, %v; want progress", line, err)
	}

	cancel := legacyPost(t, c, c.Fronts[1], session,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"user stopped it"}}`)
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled at the other replica = %d, want 202", cancel.StatusCode)
	}

	rest, err := io.ReadAll(events) // the stream ends by itself
	if err != nil {
		t.Fatalf("reading the rest of the stream: %v", err)
	}
	if strings.Contains(string(rest), `"id":41`) {
		t.Errorf("the cancelled call got a response: %s", rest)
	}
	poll.Until(t, 10*time.Second, "the worker to end the import as cancelled", func() bool {
		return c.Logs.Has(map[string]string{"msg": "rpc", "method": "/taskwire.v1.BoardService/ImportTasks", "code": "Canceled"})
	})
	n, err := c.DB.Task.Query().Where(task.TitleHasPrefix("Never committed")).Count(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil || n != 0 {
		t.Errorf("tasks of the cancelled import committed = %d, %v; want 0", n, err)
	}
}

// legacyInitialize opens a 2025-06-18 session at front door addr.
func legacyInitialize(t *testing.T, c *nodetest.Cluster, addr string) string {
	t.Helper()
	return legacyOpen(t, c.Token, addr, "2025-06-18")
}

// legacyOpen opens a session of version with token at front door addr.
func legacyOpen(t *testing.T, token, addr, version string) string {
	t.Helper()
	resp := legacyPostAs(t, token, addr, version, "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize = %d, session %q", resp.StatusCode, session)
	}
	return session
}

// legacyPost POSTs body as a 2025-06-18 client of session would.
func legacyPost(t *testing.T, c *nodetest.Cluster, addr, session, body string) *http.Response {
	t.Helper()
	return legacyPostAs(t, c.Token, addr, "2025-06-18", session, body)
}

// legacyPostAs POSTs body with token as a client of session at version
// would.
func legacyPostAs(t *testing.T, token, addr, version, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+addr+"/api/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", version)
	}
	// Bound every exchange, so a cancellation that never arrives fails the
	// test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestLegacyClientCancels: the go-sdk client at each legacy revision
// cancels a call the way it does (notifications/cancelled, to whichever
// replica the balancer picks, and it stops reading): the worker's import
// stops and nothing of it is committed.
func TestLegacyClientCancels(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			c := nodetest.StartCluster(t, nodetest.Setups()[0])
			holdImportAt(c.DB, 30)
			callCtx, cancelCall := context.WithCancel(context.Background())
			defer cancelCall()
			cs, _ := c.LegacyClient(t, version, &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { cancelCall() },
			})
			params := heldImport("imp")
			if _, err := cs.CallTool(callCtx, params); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool after cancelling = %v, want context.Canceled", err)
			}
			checkImportCancelled(t, c.Logs, c.DB)
			// The session goes on.
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Errorf("tools/list after the cancelled call: %v", err)
			}
		})
	}
}

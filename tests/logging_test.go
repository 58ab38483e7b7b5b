//lint:file-ignore SA1019 MCP logging is deprecated in 2026-07-28 but still served to the clients that use it; this file tests that it works.

package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLogLevelAndTrace: a request that sets io.modelcontextprotocol/logLevel
// gets notifications/message at or above that level on its own stream
// before the response, and a W3C traceparent in _meta reaches the worker,
// whose log record of the call carries its trace id.
func TestLogLevelAndTrace(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	importWith := func(level string) []map[string]any {
		body := `{"jsonrpc":"2.0","id":"imp-` + level + `","method":"tools/call","params":{"name":"tasks_import","arguments":{"tasks":[{"title":"one"},{"title":"two"}],"allow_duplicate":true},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/logLevel":"` + level + `","traceparent":"` + trace + `"}}}`
		status, raw := nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", "tasks_import", body)
		if status != http.StatusOK {
			t.Fatalf("tasks_import with logLevel %s: %d %s", level, status, raw)
		}
		var msgs []map[string]any
		if bytes.HasPrefix(raw, []byte("{")) { // nothing to stream: plain JSON
			raw = append([]byte("data: "), raw...)
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			mcptest.ValidateServerMessage(t, []byte(data), "tools/call")
			var m map[string]any
			json.Unmarshal([]byte(data), &m)
			msgs = append(msgs, m)
		}
		if len(msgs) == 0 || msgs[len(msgs)-1]["result"] == nil {
			t.Fatalf("stream for logLevel %s = %s, want messages then the result last", level, raw)
		}
		return msgs
	}
	levels := func(msgs []map[string]any) []string {
		var out []string
		for _, m := range msgs {
			if m["method"] == "notifications/message" {
				out = append(out, m["params"].(map[string]any)["level"].(string))
			}
		}
		return out
	}
	if got := levels(importWith("info")); strings.Join(got, ",") != "info" {
		t.Errorf("messages at logLevel info = %v, want [info] (no debug)", got)
	}
	if got := levels(importWith("debug")); strings.Join(got, ",") != "info,debug" {
		t.Errorf("messages at logLevel debug = %v, want [info debug]", got)
	}
	if got := levels(importWith("error")); len(got) != 0 {
		t.Errorf("messages at logLevel error = %v, want none", got)
	}
	if !h.Logs.Has(map[string]string{"msg": "rpc", "method": "/taskwire.v1.BoardService/ImportTasks", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}) {
		t.Error("the worker's record of the call lacks the client's trace id")
	}
}

// TestLegacyLogLevel: a legacy session gets no log messages until it sets
// a level with logging/setLevel; then its tool calls get those at or
// above the level, whichever replica serves the call (the level reaches
// the others over NATS).
func TestLegacyLogLevel(t *testing.T) {
	c := nodetest.StartCluster(t, nodetest.Setups()[0])
	var mu sync.Mutex
	var got []string
	cs, _ := c.LegacyClient(t, "2025-11-25", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, string(r.Params.Level))
			mu.Unlock()
		},
	})
	ctx := context.Background()
	imp := func() {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{
			"tasks": []map[string]any{{"title": "one"}, {"title": "two"}}, "allow_duplicate": true}}); err != nil {
			t.Fatal(err)
		}
	}
	levels := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := strings.Join(got, ",")
		got = nil
		return s
	}
	imp()
	if l := levels(); l != "" {
		t.Errorf("log messages before logging/setLevel: %s, want none", l)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	// The cluster's client alternates replicas, so of two calls one runs
	// where setLevel did not: it learns the level over NATS, soon after.
	twice := func() string { imp(); imp(); return levels() }
	poll.Until(t, 10*time.Second, "both replicas to log at debug", func() bool { return twice() == "info,debug,info,debug" })
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "both replicas to stop logging below error", func() bool { return twice() == "" })
}

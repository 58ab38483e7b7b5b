package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// TestLogLevelAndTrace: a request that sets io.modelcontextprotocol/logLevel
// gets notifications/message at or above that level on its own stream
// before the response, and a W3C traceparent in _meta reaches the worker,
// whose log record of the call carries its trace id.
func TestLogLevelAndTrace(t *testing.T) {
	h := startHarness(t, setups()[0])
	const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	importWith := func(level string) []map[string]any {
		body := `{"jsonrpc":"2.0","id":"imp-` + level + `","method":"tools/call","params":{"name":"tasks_import","arguments":{"tasks":[{"title":"one"},{"title":"two"}]},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/logLevel":"` + level + `","traceparent":"` + trace + `"}}}`
		status, raw := postMCP(t, h.sys.Endpoint, h.token, "tools/call", "tasks_import", body)
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
	if !h.logs.has(map[string]string{"msg": "rpc", "method": "/taskwire.v1.BoardService/ImportTasks", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}) {
		t.Error("the worker's record of the call lacks the client's trace id")
	}
}

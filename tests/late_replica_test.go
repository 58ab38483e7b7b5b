package tests

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestLateReplicaLearnsSessionNews: a front door that starts after a
// client ended its legacy session at another, or set its logging level
// there, knows both from its first request, with no news published since
// it started: it refuses the ended session (404), and the other session's
// tool calls there get log messages at the level it set.
func TestLateReplicaLearnsSessionNews(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			c := nodetest.StartCluster(t, s)
			ended := legacyInitialize(t, c, c.Fronts[0])
			leveled := legacyInitialize(t, c, c.Fronts[0])
			plain := legacyInitialize(t, c, c.Fronts[0])
			legacyDelete(t, c, c.Fronts[0], ended)
			resp := legacyPost(t, c, c.Fronts[1], leveled, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`)
			if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
				t.Fatalf("logging/setLevel = %d %s, want 200 and a result", resp.StatusCode, body)
			}

			late := c.AddFront(t)
			ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
			if resp := legacyPost(t, c, late, ended, ping); resp.Body.Close() != nil || resp.StatusCode != http.StatusNotFound {
				t.Errorf("ping of the ended session at the new front door = %d, want 404", resp.StatusCode)
			}
			if got := importLogLevels(t, c, late, leveled); got != "info,debug" {
				t.Errorf("log messages of a tool call at the new front door, session at debug = [%s], want [info,debug]", got)
			}
			if got := importLogLevels(t, c, late, plain); got != "" {
				t.Errorf("log messages of a tool call at the new front door, session with no level = [%s], want none", got)
			}
		})
	}
}

// legacyDelete ends session at front door addr, as its client would.
func legacyDelete(t *testing.T, c *nodetest.Cluster, addr, session string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, "http://"+addr+"/api/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE = %d, want 204", resp.StatusCode)
	}
}

// importLogLevels calls tasks_import in session at front door addr and
// returns the levels of the log messages its stream carried, in order,
// comma-separated.
func importLogLevels(t *testing.T, c *nodetest.Cluster, addr, session string) string {
	t.Helper()
	resp := legacyPost(t, c, addr, session,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tasks_import","arguments":{"tasks":[{"title":"one"},{"title":"two"}]}}}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tasks_import = %d, want 200", resp.StatusCode)
	}
	var levels []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Level string `json:"level"`
			} `json:"params"`
		}
		line, _ := strings.CutPrefix(sc.Text(), "data: ")
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == "notifications/message" {
			levels = append(levels, m.Params.Level)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the tasks_import stream: %v", err)
	}
	return strings.Join(levels, ",")
}

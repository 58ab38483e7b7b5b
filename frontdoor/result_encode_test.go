package frontdoor

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// Tool results write themselves (jsonrpc.Appender) to the same JSON as
// encoding/json writes for them, at both eras' shapes.
func TestToolResultsWriteThemselves(t *testing.T) {
	structured := json.RawMessage(`{"task":{"ref":"T-1","title":"say \"hi\" <now>","labels":["a","b"]}}`)
	results := map[string]*mcp.CallToolResult{
		"structured": {Content: []mcp.Content{mcp.TextContent(string(structured))}, StructuredContent: structured},
		"error":      {Content: []mcp.Content{mcp.TextContent("no such task\nline two")}, IsError: true},
		"empty":      {Content: []mcp.Content{}},
	}
	head := resultHead{ResultType: mcp.ResultComplete, Meta: resultMeta{ServerInfo: mcp.Implementation{Name: "taskwire", Version: "1"}}}
	for name, res := range results {
		for era, result := range map[string]any{"2026-07-28": callToolResult{head, res}, "legacy": res} {
			fast, err := jsonrpc.EncodeResult(json.RawMessage(`42`), result)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 42, "result": result})
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal(fast, &a); err != nil {
				t.Fatalf("%s, %s: %s is not JSON: %v", name, era, fast, err)
			}
			if err := json.Unmarshal(want, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s, %s: wrote\n%s\nwant the same as encoding/json's\n%s", name, era, fast, want)
			}
		}
	}
}

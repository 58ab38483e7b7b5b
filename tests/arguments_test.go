package tests

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/node/nodetest"
)

// badArguments are arguments that do not fit their tool's inputSchema,
// the first three from the issue that reported them answered -32603 and
// logged at ERROR, each with what the answer must say and the value
// that must not reach any log.
var badArguments = []struct {
	tool   string
	args   map[string]any
	says   string
	secret string
}{
	{"tasks_move", map[string]any{"ref": "T-1", "position": 1 << 62}, "position must be at most 2147483647", "4611686018427387904"},
	{"comments_edit", map[string]any{"id": uint64(1) << 63, "body": "x"}, "id must be at most 2147483647", "9223372036854775808"},
	{"tasks_list", map[string]any{"updated_since": "2020'; DROP TABLE tasks;--"}, "updated_since must be a time in RFC 3339 form", "DROP TABLE"},
	{"tasks_list", map[string]any{"limit": "many"}, "limit must be an integer, not a string", "many"},
	{"tasks_list", map[string]any{"label": "nul\x00label"}, "label has U+0000 NULL at character 4", "nul\x00label"},
	{"tasks_create", map[string]any{"title": "fine", "idempotency_key": "key\x00"}, "idempotency_key has U+0000 NULL", "key\x00"},
}

// TestBadArgumentsAreToolErrors: arguments that do not fit a tool's
// inputSchema come back, in every era, as a result with isError (HTTP 200)
// whose text says what is wrong and what to do, with the problems in
// _meta — not as -32602, which a client does not show the model, nor as
// -32603 logged at ERROR with the caller's value in the log.
func TestBadArgumentsAreToolErrors(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			modern, modernRec := h.Client(t, h.Token, nil)
			legacy, legacyRec := h.LegacyClient(t, "2025-06-18", nil)
			for _, era := range []struct {
				name string
				cs   *mcp.ClientSession
				rec  *nodetest.WireRecorder
			}{{"2026-07-28", modern, modernRec}, {"2025-06-18", legacy, legacyRec}} {
				for _, tc := range badArguments {
					call := fmt.Sprintf("%s: %s(%v)", era.name, tc.tool, tc.args)
					res, err := era.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
					if err != nil {
						t.Errorf("%s = %v, want a result with isError", call, err)
						continue
					}
					if st := era.rec.StatusOf(http.MethodPost); st != http.StatusOK {
						t.Errorf("%s answered HTTP %d, want 200", call, st)
					}
					if !res.IsError || !strings.Contains(nodetest.Text(res), tc.says) || !strings.Contains(nodetest.Text(res), "call "+tc.tool+" again") {
						t.Errorf("%s = isError %v, %q; want isError saying %q and to call %s again", call, res.IsError, nodetest.Text(res), tc.says, tc.tool)
					}
					if problems, _ := res.Meta["taskwire/problems"].([]any); len(problems) == 0 || !strings.Contains(fmt.Sprint(problems), tc.says) {
						t.Errorf("%s _meta = %v, want taskwire/problems saying %q", call, res.Meta, tc.says)
					}
				}
			}
			for _, r := range h.Logs.Records() {
				if r["level"] == "ERROR" {
					t.Errorf("log record at ERROR: %v", r)
				}
				for _, tc := range badArguments {
					if strings.Contains(fmt.Sprint(r), tc.secret) {
						t.Errorf("log record %v holds the argument value %q", r, tc.secret)
					}
				}
			}
		})
	}
}

// TestExtremeArgumentsNeverInternal calls every tool with arguments its
// inputSchema admits, at their extremes — each integer at its minimum and
// at its maximum, times at years 1 and 9999, long text of combining marks
// and astral characters, every enum's last value — and wants each answered
// as a result (isError or not), never as -32603: whatever the schema lets
// through, the tool must handle, on both databases.
func TestExtremeArgumentsNeverInternal(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			cs, _ := h.Client(t, h.Token, nil)
			ctx := context.Background()
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "A task to aim at"})
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "tasks_delete" || tool.Name == "tasks_restore" {
					continue // a person confirms them first: the arguments reach the tool only then
				}
				schema := tool.InputSchema.(map[string]any)
				for _, high := range []bool{false, true} {
					args := extreme(schema, high).(map[string]any)
					if _, ok := args["ref"]; ok {
						args["ref"] = "T-1"
					}
					if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args}); err != nil {
						t.Errorf("%s(%.300v) = %v, want a result", tool.Name, args, err)
					}
				}
			}
			for _, r := range h.Logs.Records() {
				if r["level"] == "ERROR" {
					t.Errorf("log record at ERROR: %.500v", r)
				}
			}
		})
	}
}

// extreme returns a value schema s admits, at its upper extreme (high) or
// its lower one.
func extreme(s map[string]any, high bool) any {
	if enum, ok := s["enum"].([]any); ok {
		if high {
			return enum[len(enum)-1]
		}
		return enum[0]
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			out[name] = extreme(p.(map[string]any), high)
		}
		return out
	case "array":
		n := 3
		if most, ok := s["maxItems"].(float64); ok && int(most) < n {
			n = int(most)
		}
		item := s["items"].(map[string]any)
		out := make([]any, n)
		for i := range out {
			out[i] = extreme(item, high)
		}
		return out
	case "integer", "number":
		if high {
			return int64(s["maximum"].(float64))
		}
		return int64(s["minimum"].(float64))
	case "boolean":
		return high
	case "string":
		if s["format"] == "date-time" {
			if high {
				return "9999-12-31T23:59:59.999999999Z"
			}
			return "0001-01-01T00:00:00Z"
		}
		n := 2000
		if most, ok := s["maxLength"].(float64); ok && int(most) < n {
			n = int(most)
		}
		if !high {
			return strings.Repeat("e\u0301", n/2) // combining marks: NFC halves it
		}
		return strings.Repeat("\U0001F600", n) // astral: 4 bytes each, 2 UTF-16 units
	}
	return nil
}

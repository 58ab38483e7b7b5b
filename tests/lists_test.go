package tests

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestEmptyListsHaveItems: a list that finds nothing answers
// {"items": [], "next_cursor": ""}, as the README promises, rather than
// {} (a script reading items got a KeyError), and its outputSchema says
// so.
func TestEmptyListsHaveItems(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	cs, _ := h.Client(t, h.Token, nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	outputs := compileOutputSchemas(t, tools.Tools)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"tasks_list", map[string]any{"label": "nothing-has-this"}},
		{"tasks_search", map[string]any{"query": "nothing"}},
		{"context_get", nil},
		{"audit_list", map[string]any{"tool": "tasks_import"}},
	} {
		got := nodetest.CallOK(t, cs, tc.tool, tc.args)
		if items, ok := got["items"].([]any); !ok || len(items) != 0 || got["next_cursor"] != "" {
			t.Errorf("%s(%v) = %v, want items [] and next_cursor \"\"", tc.tool, tc.args, got)
		}
		outputs.check(t, tc.tool, got)
	}
	for _, tool := range tools.Tools {
		if _, lists := tool.OutputSchema.(map[string]any)["properties"].(map[string]any)["next_cursor"]; !lists {
			continue
		}
		if req := fmt.Sprint(tool.OutputSchema.(map[string]any)["required"]); req != "[items next_cursor]" {
			t.Errorf("%s outputSchema requires %s, want [items next_cursor]", tool.Name, req)
		}
	}
}

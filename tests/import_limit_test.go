package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// envelope is a tools/call request as a client sends it, around args,
// with a progress token when progress is set.
func envelope(t *testing.T, tool string, args any, progress bool) string {
	t.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "an-assistant-with-a-long-name", "version": "10.20.30-beta.4"},
	}
	if progress {
		meta["progressToken"] = "import-progress-token-0123456789"
	}
	raw, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args, "_meta": meta},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// largest returns the largest value schema s admits, in bytes of JSON:
// every string at its maxLength of 4-byte characters (every string must
// have one, or be an enum), every list at its maxItems, every property set.
func largest(t *testing.T, where string, s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok {
		longest := ""
		for _, v := range enum {
			if v := v.(string); len(v) > len(longest) {
				longest = v
			}
		}
		return longest
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		for name, p := range s["properties"].(map[string]any) {
			out[name] = largest(t, where+"."+name, p.(map[string]any))
		}
		return out
	case "array":
		most, ok := s["maxItems"].(float64)
		if !ok {
			t.Fatalf("%s has no maxItems: the largest import is unbounded", where)
		}
		out := make([]any, int(most))
		for i := range out {
			out[i] = largest(t, where+"[]", s["items"].(map[string]any))
		}
		return out
	case "string":
		most, ok := s["maxLength"].(float64)
		if !ok {
			t.Fatalf("%s has no maxLength: the largest import is unbounded", where)
		}
		return strings.Repeat("\U0001D400", int(most))
	case "integer":
		return int64(s["minimum"].(float64)) // the longer to write of its bounds
	case "boolean":
		return false
	}
	t.Fatalf("%s: no largest value for %v", where, s)
	return nil
}

// TestLargestImportFitsTheBodyLimit: the largest tasks_import its
// inputSchema admits, every character 4 bytes long, fits in the front
// door's default body limit, so a client that keeps to the schema never
// gets a 413; a real import of that size goes through; and a body over the
// limit is refused with a 413 that says the limit.
func TestLargestImportFitsTheBodyLimit(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	cs, _ := h.Client(t, h.Token, nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "tasks_import" {
			continue
		}
		body := envelope(t, tool.Name, largest(t, tool.Name, tool.InputSchema.(map[string]any)), true)
		if len(body) > frontdoor.DefaultMaxBodyBytes {
			t.Errorf("the largest tasks_import is %d bytes, more than the body limit of %d", len(body), frontdoor.DefaultMaxBodyBytes)
		}
		t.Logf("the largest tasks_import is %d bytes, %.1f%% of the body limit", len(body), 100*float64(len(body))/frontdoor.DefaultMaxBodyBytes)
	}

	// A real import as large as the schema allows, but for handles, which
	// are ASCII: 200 drafts with 20 assignees, 10 labels and every text at
	// its longest, of 4-byte characters.
	tenant := nodetest.CallOK(t, cs, "whoami", nil)["tenant"].(string)
	var handles []string
	for i := range 20 {
		h40 := fmt.Sprintf("m%02d-%s", i, strings.Repeat("x", 36))
		if _, err := tenancy.AddMember(context.Background(), h.Sys.DB, tenant, tenancy.MemberSpec{Handle: h40}); err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h40)
	}
	letters := func(n, seed int) string { // n bold letters, distinct per seed
		s := []rune(strings.Repeat("\U0001D400", n))
		for i := 0; seed > 0; i, seed = i+1, seed/26 {
			s[i] = rune(0x1D400 + seed%26)
		}
		return string(s)
	}
	drafts := make([]map[string]any, 200)
	for i := range drafts {
		labels := make([]string, 10)
		for k := range labels {
			labels[k] = strings.ToLower(letters(40, k+1))
		}
		drafts[i] = map[string]any{
			"title": letters(200, i+1), "note": strings.Repeat("\U0001F600", 3000), "lane": "backlog", "kind": "feature", "size": "xl",
			"assignees": handles, "labels": labels, "project": strings.Repeat("\U0001F680", 60),
		}
	}
	body := envelope(t, "tasks_import", map[string]any{"tasks": drafts, "idempotency_key": strings.Repeat("\U0001F511", 200)}, false)
	status, raw := nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", "tasks_import", body)
	var res struct {
		Result struct {
			IsError           bool
			StructuredContent struct{ Imported int }
		}
	}
	if err := json.Unmarshal(raw, &res); status != http.StatusOK || err != nil || res.Result.IsError || res.Result.StructuredContent.Imported != 200 {
		t.Errorf("a tasks_import of %d bytes = %d %.300s, want 200 tasks imported", len(body), status, raw)
	}

	over := `{"pad":"` + strings.Repeat("x", frontdoor.DefaultMaxBodyBytes) + `"}`
	status, raw = nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", "tasks_import", over)
	if want := "larger than 4 MiB (4194304 bytes)"; status != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), want) {
		t.Errorf("a body over the limit = %d %s, want 413 saying %q", status, raw, want)
	}
}

package frontdoor

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
)

// TestContentNotServed checks that a feature without a backend is neither
// advertised nor served: its methods get -32601 (404) in both eras.
func TestContentNotServed(t *testing.T) {
	h, err := New(Config{
		Endpoint: testEndpoint, Verifier: fakeVerifier{}, Tools: goldenBackend(),
		SessionKeys: [][]byte{testSessionKey}, now: testNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(h, newCall(t, 1, "server/discover", nil, nil))
	var d struct{ Capabilities map[string]json.RawMessage }
	decodeResult(t, rec.Body.Bytes(), &d)
	for _, c := range []string{"resources", "prompts", "completions"} {
		if _, ok := d.Capabilities[c]; ok {
			t.Errorf("discover advertises %s without a backend: %s", c, rec.Body)
		}
	}
	calls := []struct {
		method string
		params map[string]any
	}{
		{"resources/list", nil},
		{"resources/templates/list", nil},
		{"resources/read", map[string]any{"uri": "taskwire://boards/main/context"}},
		{"prompts/list", nil},
		{"prompts/get", map[string]any{"name": "standup"}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "standup"}, "argument": map[string]any{"name": "board", "value": ""}}},
	}
	for i, c := range calls {
		req := newCall(t, i+2, c.method, c.params, nil)
		if uri, ok := c.params["uri"].(string); ok {
			req.Header.Set(hdrName, uri)
		}
		rec := serve(h, req)
		var msg struct{ Error struct{ Code int } }
		_ = json.Unmarshal(rec.Body.Bytes(), &msg)
		if rec.Code != http.StatusNotFound || msg.Error.Code != -32601 {
			t.Errorf("%s without a backend = %d %s, want 404 and -32601", c.method, rec.Code, rec.Body)
		}
		mcptest.ValidateServerMessage(t, rec.Body.Bytes(), c.method)
	}
}

// TestCompletionCapped checks that the handler caps what a backend
// returns at 100 values, whatever the backend does.
func TestCompletionCapped(t *testing.T) {
	h := newTestHandler(t, nil, nil)
	rec := serve(h, newCall(t, 1, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "standup"},
		"argument": map[string]any{"name": "ref", "value": ""},
	}, nil))
	var res struct{ Completion mcp.Completion }
	decodeResult(t, rec.Body.Bytes(), &res)
	if got := res.Completion; len(got.Values) != mcp.MaxCompletionValues || !got.HasMore || got.Total != 150 {
		t.Errorf("completion = %d values, hasMore %v, total %d; want %d, true, 150", len(got.Values), got.HasMore, got.Total, mcp.MaxCompletionValues)
	}
}

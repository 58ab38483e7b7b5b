package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestParamHeadersEndToEnd: a real client mirrors the arguments a tool
// marks with x-mcp-header into Mcp-Param headers, Base64 for a value no
// header can carry as it is, and the front door takes what it sent; a
// call without those headers is refused with 400 and -32020 before the
// worker sees it.
func TestParamHeadersEndToEnd(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setup{Name: "sqlite+embedded-nats", Conformance: true})
	ctx := context.Background()
	cs, _ := h.Client(t, "", nil)
	if _, err := cs.ListTools(ctx, nil); err != nil { // the client learns the annotations here
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_custom_headers",
		Arguments: map[string]any{"region": " Zürich ", "priority": 3, "verbose": true}})
	if err != nil {
		t.Fatalf("test_custom_headers through go-sdk: %v", err)
	}
	if got, want := nodetest.Text(res), `Received: region " Zürich ", priority 3, verbose true.`; got != want {
		t.Errorf("test_custom_headers = %q, want %q", got, want)
	}

	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"test_custom_headers","arguments":{"region":"eu"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, h.Sys.Endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "test_custom_headers")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		ID    int
		Error struct{ Code int }
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || resp.StatusCode != http.StatusBadRequest || msg.Error.Code != -32020 || msg.ID != 9 {
		t.Errorf("tools/call without Mcp-Param-Region: %d %+v (%v), want 400 with -32020 for id 9", resp.StatusCode, msg, err)
	}
}

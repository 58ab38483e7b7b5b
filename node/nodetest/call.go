package nodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls to the MCP endpoint: through the go-sdk client, or raw HTTP.

// CallOK calls the tool name with args through cs, failing t unless it
// succeeds, and returns its structured content.
func CallOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	params := &mcp.CallToolParams{Name: name}
	if args != nil {
		params.Arguments = args
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError: %s", name, Text(res))
	}
	return Structured(t, res)
}

// Structured is the structured content of res as a map.
func Structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	return m
}

// Text is the text content of res.
func Text(res *mcp.CallToolResult) string {
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ListedTools are the names of the tools cs lists.
func ListedTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// CallTool posts a 2026-07-28 tools/call of name with token.
func CallTool(t *testing.T, endpoint, token string, id int, name string) (int, http.Header, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp := postMCP(t, MCPRequest(t, endpoint, token, "tools/call", name, body))
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, raw
}

// IsError reports whether m, a decoded tools/call answer, is no result
// or a tool failure.
func IsError(m map[string]any) bool {
	r, _ := m["result"].(map[string]any)
	return r == nil || r["isError"] == true
}

// Itoa is n as JSON.
func Itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// MCPRefusal POSTs a 2026-07-28 tools/list with token to h and returns
// the status and, for a 401, the error_description of its challenge.
func MCPRefusal(t *testing.T, h *Harness, token string) (int, string) {
	t.Helper()
	return Refusal(t, h.Sys.Endpoint, token)
}

// Refusal is MCPRefusal at endpoint.
func Refusal(t *testing.T, endpoint, token string) (int, string) {
	t.Helper()
	resp := postMCP(t, MCPRequest(t, endpoint, token, "tools/list", "", toolsList))
	resp.Body.Close()
	_, why, _ := strings.Cut(resp.Header.Get("WWW-Authenticate"), `error_description="`)
	return resp.StatusCode, strings.TrimSuffix(why, `"`)
}

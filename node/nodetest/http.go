package nodetest

import (
	"io"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// FreeAddr returns a loopback address with a port nobody listens on now,
// for a process the test starts later. The port is below the ephemeral
// range (Linux's starts at 32768), from which the kernel hands out the
// ports of listeners on ":0" and of outgoing connections: a port taken
// from there and closed could be given to another process of the test
// (a worker on 127.0.0.1:0) before the one it was meant for binds it.
func FreeAddr(t *testing.T) string {
	t.Helper()
	for range 100 {
		port := reservedLow + mathrand.IntN(reservedHigh-reservedLow)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue // taken: try another
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	t.Fatalf("no free loopback port between %d and %d", reservedLow, reservedHigh)
	return ""
}

// The ports FreeAddr picks from: above the well-known and common service
// ports, below the ephemeral range.
const (
	reservedLow  = 20000
	reservedHigh = 32000
)

// toolsList is a 2026-07-28 tools/list request.
const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// PostMCP POSTs a 2026-07-28 request of method (about name, if set) with
// token to endpoint and returns the status and the body.
func PostMCP(t *testing.T, endpoint, token, method, name, body string) (int, []byte) {
	t.Helper()
	resp := postMCP(t, MCPRequest(t, endpoint, token, method, name, body))
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// MCPRequest is a POST of body to endpoint with token and the headers a
// 2026-07-28 client sends with a request of method (about name, if set).
func MCPRequest(t testing.TB, endpoint, token, method, name, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return req
}

// postMCP sends req, failing t if no answer comes; the caller closes the
// body.
func postMCP(t testing.TB, req *http.Request) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

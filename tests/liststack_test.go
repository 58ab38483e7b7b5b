package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestListenStreamStack: an idle subscriptions/listen stream keeps its
// request's goroutine, with the deepest stack the request needed, for as
// long as it is open. Through the whole front door (probes, trace
// context, admin edge, MCP handler) that stack must stay at 8 KB: at
// 16 KB, a thousand idle assistants cost 8 MB more. A handler layer or a
// deep call added on the request path fails this test.
func TestListenStreamStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector enlarges stack frames; the stack's size is checked without it")
	}
	h := nodetest.Start(t, nodetest.Setup{Name: "sqlite"})
	u, err := url.Parse(h.Sys.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	open := func(id int) net.Conn {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id)
		req, err := http.NewRequest(http.MethodPost, h.Sys.Endpoint, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		req.Header.Set("Authorization", "Bearer "+h.Token)
		// A bare connection, read from this goroutine: the client adds no
		// goroutine, and so no stack, of its own.
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		if err := req.Write(conn); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("listen: %v, %v", resp, err)
		}
		var seen []byte
		buf := make([]byte, 512)
		for !bytes.Contains(seen, []byte("notifications/subscriptions/acknowledged")) {
			n, err := resp.Body.Read(buf)
			if err != nil {
				t.Fatalf("listen stream ended before its acknowledgement: %v (%s)", err, seen)
			}
			seen = append(seen, buf[:n]...)
		}
		return conn
	}
	// The first stream verifies the token (Ed25519, deep); the rest find
	// it remembered, as a server's later clients do.
	first := open(0)
	defer first.Close()

	stacks := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.StackInuse
	}
	const streams = 200
	before := stacks()
	for i := range streams {
		conn := open(i + 1)
		defer conn.Close()
	}
	per := float64(stacks()-before) / streams
	t.Logf("goroutine stacks per idle listen stream: %.0f bytes", per)
	// 8 KB for the request's goroutine and 2 KB for net/http's
	// background reader; 16 + 2 KB when the request's stack grew.
	if per > 12<<10 {
		t.Errorf("an idle listen stream holds %.1f KB of goroutine stacks, want at most 12 (the request's goroutine at 8 KB)", per/1024)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
)

// modernMeta is the _meta every 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// rawBridge is the bridge driven line by line, as a stdio client without
// an SDK would.
type rawBridge struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *syncBuffer
	logs  *syncBuffer
	done  chan error
}

func startRaw(t *testing.T, endpoint, token string, args ...string) *rawBridge {
	t.Helper()
	b := &rawBridge{out: &syncBuffer{}, logs: &syncBuffer{}, done: make(chan error, 1)}
	b.cmd = bridgeCmd(endpoint, token, b.logs, args...)
	b.cmd.Stdout = b.out
	var err error
	if b.stdin, err = b.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	t.Cleanup(func() {
		b.cmd.Process.Kill()
		checkLines(t, b.out.lines())
	})
	return b
}

func (b *rawBridge) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(b.stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// exit closes stdin and waits for the bridge to exit, which must be with 0.
func (b *rawBridge) exit(t *testing.T) []string {
	t.Helper()
	b.stdin.Close()
	select {
	case err := <-b.done:
		if err != nil {
			t.Errorf("the bridge exited with %v after stdin closed, want 0", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the bridge did not exit after stdin closed")
	}
	return b.out.lines()
}

// reply waits for the reply to id and returns its index among the lines.
func (b *rawBridge) reply(t *testing.T, id string) (int, map[string]any) {
	t.Helper()
	var at int
	var msg map[string]any
	poll.Until(t, 10*time.Second, "the reply to "+id, func() bool {
		at, msg = findReply(b.out.lines(), id)
		return msg != nil
	})
	return at, msg
}

func findReply(lines []string, id string) (int, map[string]any) {
	for i, l := range lines {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["method"] == nil && fmt.Sprint(m["id"]) == id {
			return i, m
		}
	}
	return -1, nil
}

// checkLines holds stdout to MCP's stdio rule: every line one JSON-RPC
// message, nothing else.
func checkLines(t *testing.T, lines []string) {
	t.Helper()
	for _, l := range lines {
		var m struct{ JSONRPC string }
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line is not a JSON-RPC message: %.200s", l)
		}
	}
}

func toolsList(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + modernMeta + `}}`
}

func importLine(id string, n int) string {
	drafts := make([]string, n)
	for i := range drafts {
		drafts[i] = fmt.Sprintf(`{"title":"Raw import %d"}`, i+1)
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"tasks_import","arguments":{"tasks":[` +
		strings.Join(drafts, ",") + `]},` + modernMeta + `}}`
}

// TestStdio drives the bridge line by line against a real Taskwire.
func TestStdio(t *testing.T) {
	srv := startServer(t)

	t.Run("bad line", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, `{"jsonrpc":"2.0","id":1,"method":`, `[`+toolsList("2")+`]`, toolsList("3"))
		lines := b.exit(t)
		if len(lines) != 3 {
			t.Fatalf("wrote %d lines for a broken line, a batch and a request, want 3:\n%s", len(lines), strings.Join(lines, "\n"))
		}
		for i, want := range []string{`"id":null,"error":{"code":-32700`, `"id":null,"error":{"code":-32600`} {
			if !strings.Contains(lines[i], want) {
				t.Errorf("line %d = %s, want it to hold %s", i+1, lines[i], want)
			}
		}
		if _, m := findReply(lines, "3"); m == nil || m["result"] == nil {
			t.Errorf("tools/list after the bad lines = %v, want a result", m)
		}
	})

	t.Run("notification writes nothing", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{`+modernMeta+`}}`, toolsList(`"after"`))
		lines := b.exit(t)
		if _, m := findReply(lines, "after"); len(lines) != 1 || m == nil {
			t.Errorf("a notification and a request wrote %d lines, want only the request's reply:\n%s", len(lines), strings.Join(lines, "\n"))
		}
	})

	t.Run("slow call does not hold up a fast one", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, importLine(`"slow"`, 200), toolsList(`"fast"`))
		fast, _ := b.reply(t, "fast")
		slow, m := b.reply(t, "slow")
		if fast > slow {
			t.Errorf("the fast call's reply came after the slow import's")
		}
		if m["result"] == nil {
			t.Errorf("the import's reply = %v, want a result", m)
		}
		b.exit(t)
	})

	t.Run("EOF with a call in flight", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, importLine("7", 200))
		lines := b.exit(t)
		if _, m := findReply(lines, "7"); m == nil || m["result"] == nil {
			t.Errorf("after stdin closed the import's reply = %v, want its result", m)
		}
	})

	t.Run("listen stream", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`)
		poll.Until(t, 10*time.Second, "the listen stream's acknowledgement", func() bool {
			return strings.Contains(b.out.String(), `"method":"notifications/subscriptions/acknowledged"`)
		})
		b.send(t, toolsList(`"meanwhile"`))
		b.reply(t, "meanwhile")
		if _, m := findReply(b.exit(t), "l"); m != nil {
			t.Errorf("the listen stream the client left open got a reply: %v", m)
		}
	})

	t.Run("server error passes through", func(t *testing.T) {
		b := startRaw(t, srv.endpoint, srv.token)
		b.send(t, `{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"no_such_tool","arguments":{},`+modernMeta+`}}`)
		_, m := b.reply(t, "u")
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
			t.Errorf("calling an unknown tool = %v, want the server's -32602", m)
		}
		b.exit(t)
	})
}

// TestHTTPFailures covers what a real Taskwire does not do: a proxy's
// error page, and a call that outlives the drain after stdin closes.
func TestHTTPFailures(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"hang"`)) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		http.Error(w, "<html>Bad Gateway</html>", http.StatusBadGateway)
	}))
	defer ts.Close()
	defer close(release)

	b := startRaw(t, ts.URL+"/api/mcp", "t0ken", "--drain", "200ms")
	b.send(t, toolsList(`"proxy"`), toolsList(`"hang"`))
	_, m := b.reply(t, "proxy")
	e, _ := m["error"].(map[string]any)
	if data, _ := e["data"].(map[string]any); data == nil || data["status"] != float64(502) || !strings.Contains(fmt.Sprint(e["message"]), "HTTP 502") {
		t.Errorf("a 502 with an HTML body = %v, want an error naming HTTP 502", m)
	}
	lines := b.exit(t)
	if _, m := findReply(lines, "hang"); m == nil || !strings.Contains(fmt.Sprint(m["error"]), "did not finish within 200ms") {
		t.Errorf("a call still running when the drain ended = %v, want an error saying so", m)
	}
}

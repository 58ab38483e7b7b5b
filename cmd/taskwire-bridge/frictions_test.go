package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHelp: -h and --help print the usage on stdout and exit 0, with
// nothing on stderr.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{arg}, strings.NewReader(""), &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), "usage: taskwire-bridge") || !strings.Contains(stdout.String(), "-token") || stderr.Len() != 0 {
			t.Errorf("taskwire-bridge %s: exit %d, stdout %q, stderr %q; want 0, the usage on stdout, nothing on stderr", arg, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--nope"}, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage:") {
		t.Errorf("taskwire-bridge --nope: exit %d, stderr %q; want 2 and the usage on stderr", code, stderr.String())
	}
}

// TestTokenWhitespace: a token with its line end, from the environment or
// the flag, works: the space around it is not part of it.
func TestTokenWhitespace(t *testing.T) {
	srv := startServer(t)
	for name, args := range map[string][]string{
		"env":  nil,
		"flag": {"--token", "  " + srv.token + "\r\n"},
	} {
		b := startRaw(t, srv.endpoint, srv.token+"\n", args...)
		b.send(t, toolsList(`"w"`))
		if _, m := findReply(b.exit(t), "w"); m == nil || m["result"] == nil {
			t.Errorf("%s: tools/list with a token followed by a line end = %v, want a result", name, m)
		}
	}
}

// TestRefusedToken: a 401 says the server refused the token, with the
// server's own reason, and what to check, never that it is unreachable.
func TestRefusedToken(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource/api/mcp", error="invalid_token", error_description="the token expired at 09:00"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unauthorized: the bearer token is not valid"}}`)
	}))
	defer ts.Close()
	b := startRaw(t, ts.URL+"/api/mcp", "stale")
	b.send(t, toolsList(`"r"`))
	_, m := b.reply(t, "r")
	msg := fmt.Sprint(m["error"].(map[string]any)["message"])
	if !strings.Contains(msg, "refused the token (HTTP 401: the token expired at 09:00): check TASKWIRE_TOKEN") || strings.Contains(msg, "cannot reach") {
		t.Errorf("a 401 = %q, want it to say the token was refused (HTTP 401 and the server's reason) and to check TASKWIRE_TOKEN", msg)
	}
	b.exit(t)

	srv := startServer(t)
	b = startRaw(t, srv.endpoint, "not-a-token")
	b.send(t, toolsList(`"real"`))
	_, m = b.reply(t, "real")
	if msg := fmt.Sprint(m["error"]); !strings.Contains(msg, "refused the token (HTTP 401: ") || !strings.Contains(msg, "check TASKWIRE_TOKEN") {
		t.Errorf("a real server's 401 = %s, want the refusal with its reason", msg)
	}
	b.exit(t)
}

// legacyServer is a 2025 server whose initialize is slow to answer: it
// records the method and session id of every message, in the order they
// arrive.
type legacyServer struct {
	mu   sync.Mutex
	seen []string // "method session"
}

func (s *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	json.Unmarshal(body, &m)
	s.mu.Lock()
	s.seen = append(s.seen, m.Method+" "+r.Header.Get("Mcp-Session-Id"))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case m.Method == "initialize":
		<-time.After(200 * time.Millisecond) // a server far away
		w.Header().Set("Mcp-Session-Id", "s-1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"slow","version":"1"}}}`, m.ID)
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"tools":[]}}`, m.ID)
	}
}

func (s *legacyServer) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestLegacyLinesWaitForInitialize: initialize and the lines after it,
// written at once, reach the server in order, each after initialize's
// answer, with the session id it set.
func TestLegacyLinesWaitForInitialize(t *testing.T) {
	srv := &legacyServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	b := startRaw(t, ts.URL+"/api/mcp", "t0ken")
	b.send(t,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	)
	b.reply(t, "2")
	lines := b.exit(t)
	if at1, _ := findReply(lines, "1"); at1 < 0 {
		t.Errorf("initialize got no reply:\n%s", strings.Join(lines, "\n"))
	}
	got := srv.messages()
	want := []string{"initialize ", "notifications/initialized s-1", "tools/list s-1"}
	if len(got) < 3 || got[0] != want[0] || !(got[1] == want[1] && got[2] == want[2] || got[1] == want[2] && got[2] == want[1]) {
		t.Errorf("the server saw %q, want initialize first, then the others with session s-1", got)
	}
}

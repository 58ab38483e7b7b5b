package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mcp/mcptest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestServeCommand runs `taskwire serve` as a user would: the first start
// prints a token and a client configuration, the README's curl exchange
// works with it, Ctrl-C shuts down cleanly, and a second start on the same
// data keeps the tenant and the key, so the first token still works.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	// Both starts use one port: the endpoint URL is every token's audience.
	args := []string{"serve", "--addr", nodetest.FreeAddr(t), "--data", dir, "--shutdown-grace", "5s"}

	first := startServe(t, args, true)
	if !strings.Contains(first.out, "claude mcp add --transport http taskwire "+first.endpoint) ||
		!strings.Contains(first.out, `"Authorization": "Bearer `) {
		t.Errorf("first start printed no ready-to-paste configuration:\n%s", first.out)
	}
	token := regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`).FindStringSubmatch(first.out)
	if token == nil {
		t.Fatalf("first start printed no token:\n%s", first.out)
	}

	// The README's curl example, byte for byte in shape.
	status, body := nodetest.PostMCP(t, first.endpoint, token[1], "tools/call", "tasks_create",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tasks_create",
		 "arguments":{"title":"Write the release notes","kind":"chore"},
		 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		          "io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != http.StatusOK {
		t.Fatalf("tasks_create over curl: %d %s", status, body)
	}
	mcptest.ValidateServerMessage(t, body, "tools/call")
	var res struct {
		Result struct {
			ResultType        string
			Content           []struct{ Text string }
			StructuredContent struct{ Task struct{ Ref, Lane string } }
		}
	}
	json.Unmarshal(body, &res)
	if r := res.Result; r.ResultType != "complete" || r.StructuredContent.Task.Ref != "T-1" ||
		len(r.Content) != 1 || r.Content[0].Text != "Created T-1 [backlog] Write the release notes (chore, v1)" {
		t.Errorf("tasks_create over curl = %s, want T-1 created in the backlog", body)
	}
	first.stop(t)

	second := startServe(t, args, false)
	if strings.Contains(second.out, "token") || second.endpoint == "" {
		t.Errorf("second start should print only where it serves, got:\n%s", second.out)
	}
	status, body = nodetest.PostMCP(t, second.endpoint, token[1], "tools/call", "tasks_get",
		`{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"tasks_get","arguments":{"ref":"T-1"},
		 "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != http.StatusOK || !bytes.Contains(body, []byte("Write the release notes")) {
		t.Errorf("tasks_get T-1 with the first token after a restart: %d %s", status, body)
	}
	second.stop(t)
}

type served struct {
	endpoint, out string
	cancel        context.CancelFunc
	done          chan error
	logs          *nodetest.SyncBuffer
}

// startServe runs the serve command until it prints where it serves.
// On a first start it also waits for the token and configuration.
func startServe(t *testing.T, args []string, first bool) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &served{cancel: cancel, done: make(chan error, 1), logs: &nodetest.SyncBuffer{}}
	logs := s.logs
	go func() {
		s.done <- run(ctx, args, pw, logs)
		pw.Close()
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	re := regexp.MustCompile(`serving MCP at (\S+)`)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := re.FindStringSubmatch(sc.Text()); m != nil && s.endpoint == "" {
			s.endpoint = m[1]
		}
		if s.endpoint != "" && (!first || strings.HasPrefix(sc.Text(), "More tokens:")) {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	s.out = out.String()
	if s.endpoint == "" {
		cancel()
		t.Fatalf("serve printed no endpoint: %v\n%s\n%s", <-s.done, s.out, logs.String())
	}
	return s
}

// stop is Ctrl-C: serve must return without error.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve after Ctrl-C = %v, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s of Ctrl-C")
	}
}

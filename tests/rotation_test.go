package tests

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestRetiredSigningKey: after the signing key is rotated, with the old
// key listed in --retired-signing-keys, what the old key signed and sealed
// keeps working — a token, a legacy session, a pending confirmation — and
// once the old key is dropped from the list, its token is refused.
func TestRetiredSigningKey(t *testing.T) {
	dir := t.TempDir()
	addr := "127.0.0.1:0"
	start := func(edit func(*node.SystemConfig)) *node.System {
		t.Helper()
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		addr = ln.Addr().String() // every restart on the same address: tokens name it
		cfg := nodetest.Config(dir, ln, slog.New(slog.DiscardHandler))
		if edit != nil {
			edit(&cfg)
		}
		sys, err := nodetest.StartSystem(cfg)
		if err != nil {
			t.Fatalf("startSystem: %v", err)
		}
		return sys
	}
	call := func(sys *node.System, token, tool string, id int, args, extra string) (int, map[string]any) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":` + nodetest.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + extra +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		status, raw := nodetest.PostMCP(t, sys.Endpoint, token, "tools/call", tool, body)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return status, m
	}
	// legacy POSTs a 2025-06-18 message, in session if one is named, and
	// returns the status and the session id the response set.
	legacy := func(sys *node.System, token, session, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", sys.Endpoint, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	const ping = `{"jsonrpc":"2.0","id":9,"method":"ping"}`

	// Key A: a token, a legacy session and a confirmation left pending.
	old := start(nil)
	token := nodetest.RecordToken(t, old.DB, old.Issuer, old.First().Tenant.Slug, old.First().Owner.ID, authz.AllScopes)
	status, session := legacy(old, token, "", initialize)
	if status != http.StatusOK || session == "" {
		t.Fatalf("initialize = %d, session %q", status, session)
	}
	call(old, token, "tasks_create", 1, `{"title":"rotate me"}`, "")
	_, m := call(old, token, "tasks_delete", 2, `{"ref":"T-1"}`, "")
	state, _ := m["result"].(map[string]any)["requestState"].(string)
	if state == "" {
		t.Fatalf("tasks_delete = %v, want a pending confirmation", m)
	}
	old.Stop(context.Background())

	// Key B signs now; A is retired.
	rotated := start(func(c *node.SystemConfig) {
		c.SigningKey, c.RetiredKeys = filepath.Join(dir, "new.key"), []string{filepath.Join(dir, "signing.key")}
	})
	if status, m := call(rotated, token, "tasks_list", 3, `{}`, ""); status != http.StatusOK || nodetest.IsError(m) {
		t.Errorf("a token of the retired key = %d %v, want accepted", status, m)
	}
	if s, _ := legacy(rotated, token, session, ping); s != http.StatusOK {
		t.Errorf("a legacy session sealed under the retired key: ping = %d, want 200", s)
	}
	yes := `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"` + state + `"`
	if status, m := call(rotated, token, "tasks_delete", 4, `{"ref":"T-1"}`, yes); status != http.StatusOK || nodetest.IsError(m) {
		t.Errorf("a confirmation sealed under the retired key = %d %v, want the delete done", status, m)
	}
	fresh := nodetest.RecordToken(t, rotated.DB, rotated.Issuer, rotated.First().Tenant.Slug, rotated.First().Owner.ID, authz.AllScopes)
	rotated.Stop(context.Background())

	// A dropped: its token is refused, the new key's still works.
	done := start(func(c *node.SystemConfig) { c.SigningKey = filepath.Join(dir, "new.key") })
	defer done.Stop(context.Background())
	if status, _ := call(done, token, "tasks_list", 5, `{}`, ""); status != http.StatusUnauthorized {
		t.Errorf("a token of a key no longer listed = %d, want 401", status)
	}
	if status, _ := call(done, fresh, "tasks_list", 6, `{}`, ""); status != http.StatusOK {
		t.Errorf("a token of the new key = %d, want 200", status)
	}
}

func TestRetiredKeyMistakes(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, retired, want string }{
		{"missing file", filepath.Join(dir, "nope.key"), "no such file"},
		{"the signing key itself", filepath.Join(dir, "signing.key"), "is the signing key"},
	} {
		cfg := nodetest.Config(dir, ln, slog.New(slog.DiscardHandler))
		cfg.ShutdownGrace, cfg.RetiredKeys = time.Second, []string{tt.retired}
		_, err := nodetest.StartSystem(cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: startSystem err = %v, want one saying %q", tt.name, err, tt.want)
		}
		ln, _ = net.Listen("tcp", "127.0.0.1:0") // a failed start closes the listener
	}
	ln.Close()
}

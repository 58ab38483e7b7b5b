package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/poll"
)

// TestSDKClient drives the real bridge with the go-sdk client over stdio,
// against a real Taskwire, in both eras: discovery or the initialize
// handshake, tools/list, an import whose progress flows through, a
// cancelled import that the server rolls back, an expired token, and the
// server going away in the middle of a call.
func TestSDKClient(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			c := connect(t, srv.endpoint, srv.token, version)
			if got := c.cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated version = %q, want %q", got, version)
			}
			checkHandshake(t, c, version)
			checkToolsList(t, c)
			checkImportProgress(t, c)
			checkCancellation(t, srv, c)
			checkExpiredToken(t, srv, version)
			checkServerGone(t, srv, c)
		})
	}
}

// TestLegacyElicitation: an older client asked to confirm a deletion gets
// the server's elicitation/create through the bridge, and its answer,
// POSTed back on the session, lets the deletion run.
func TestLegacyElicitation(t *testing.T) {
	srv := startServer(t)
	var asked atomic.Int32
	c := connect(t, srv.endpoint, srv.token, "2025-06-18", func(o *mcp.ClientOptions) {
		o.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}
	})
	callOK(t, c.cs, "tasks_create", map[string]any{"title": "To be deleted"})
	callOK(t, c.cs, "tasks_delete", map[string]any{"ref": "T-1"})
	if asked.Load() != 1 {
		t.Errorf("the person was asked %d times to confirm, want once", asked.Load())
	}
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-1"}})
	if err != nil || !res.IsError {
		t.Errorf("tasks_get after the confirmed delete = %v, %v; want it gone", res, err)
	}
}

// client is a go-sdk session over the bridge, with what it read and wrote.
type client struct {
	cs       *mcp.ClientSession
	wire     *syncBuffer // "read: …" and "write: …" lines of the session
	logs     *syncBuffer // the bridge's standard error
	token    string
	progress progressLog
}

// connect launches the bridge with token and connects the go-sdk client
// at version through it.
func connect(t *testing.T, endpoint, token, version string, opts ...func(*mcp.ClientOptions)) *client {
	t.Helper()
	c, err := tryConnect(endpoint, token, version, opts...)
	if err != nil {
		t.Fatalf("Connect at %s: %v", version, err)
	}
	t.Cleanup(func() {
		c.cs.Close()
		if strings.Contains(c.logs.String(), token) {
			t.Error("the bridge logged the token")
		}
	})
	return c
}

func tryConnect(endpoint, token, version string, opts ...func(*mcp.ClientOptions)) (*client, error) {
	c := &client{wire: &syncBuffer{}, logs: &syncBuffer{}, token: token}
	o := &mcp.ClientOptions{ProgressNotificationHandler: c.progress.record}
	for _, f := range opts {
		f(o)
	}
	sdk := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "1.0.0"}, o)
	transport := &mcp.LoggingTransport{
		Transport: &mcp.CommandTransport{Command: bridgeCmd(endpoint, token, c.logs), TerminateDuration: 15 * time.Second},
		Writer:    c.wire,
	}
	cs, err := sdk.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	c.cs = cs
	return c, err
}

// checkHandshake checks that each era began as it should: 2026-07-28 with
// server/discover alone, 2025-06-18 with initialize.
func checkHandshake(t *testing.T, c *client, version string) {
	t.Helper()
	discover, initialize := c.sent("server/discover"), c.sent("initialize")
	if version == "2026-07-28" && (len(discover) != 1 || len(initialize) != 0) ||
		version != "2026-07-28" && (len(discover) != 0 || len(initialize) != 1) {
		t.Errorf("sent %d server/discover and %d initialize at %s", len(discover), len(initialize), version)
	}
}

func checkToolsList(t *testing.T, c *client) {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
	}
	if !names["tasks_import"] || !names["tasks_list"] {
		t.Errorf("tools/list through the bridge = %d tools without tasks_import and tasks_list", len(res.Tools))
	}
}

// checkImportProgress imports 120 tasks with a progress token: every
// notification reaches the client, rising, before the result.
func checkImportProgress(t *testing.T, c *client) {
	t.Helper()
	params := importParams("Imported through the bridge", 120, "import-120")
	res, err := c.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("tasks_import of 120 = %v, %v", res, err)
	}
	if got := fmt.Sprint(res.StructuredContent.(map[string]any)["imported"]); got != "120" {
		t.Errorf("tasks_import imported %s tasks, want 120", got)
	}
	poll.Until(t, 5*time.Second, "the last progress of the import", func() bool {
		p := c.progress.of("import-120")
		return len(p) > 0 && p[len(p)-1] == 120
	})
	last := 0.0
	for _, p := range c.progress.of("import-120") {
		if p <= last {
			t.Errorf("progress went from %v to %v, want it rising", last, p)
		}
		last = p
	}
}

// checkCancellation cancels a slow import (200 tasks, the most one call
// takes) at its first progress: the call ends at once, the bridge writes
// nothing more for it, and the server rolls the import back.
func checkCancellation(t *testing.T, srv *server, c *client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.progress.onFirst("slow", cancel)
	_, err := c.cs.CallTool(ctx, importParams("Cancelled import", 200, "slow"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled tasks_import = %v, want context.Canceled", err)
	}
	poll.Until(t, 10*time.Second, "the worker to end the import as cancelled", func() bool {
		return srv.logged(map[string]string{"msg": "rpc", "method": "/taskwire.v1.BoardService/ImportTasks", "code": "Canceled"})
	})
	list := callOK(t, c.cs, "tasks_list", map[string]any{"text": "Cancelled import", "limit": 5})
	if items, _ := list["items"].([]any); len(items) != 0 {
		t.Errorf("tasks_list shows %d tasks of the cancelled import, want none (rolled back)", len(items))
	}
	c.checkSilentAfterCancel(t, "slow")
}

// checkExpiredToken connects with an expired token: the client gets an
// error that names the token, at once, instead of hanging.
func checkExpiredToken(t *testing.T, srv *server, version string) {
	t.Helper()
	token := srv.expiredToken(t)
	start := time.Now()
	c, err := tryConnect(srv.endpoint, token, version)
	if err == nil {
		c.cs.Close()
		t.Fatal("Connect with an expired token succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "refused the token") || !strings.Contains(msg, "TASKWIRE_TOKEN") {
		t.Errorf("Connect with an expired token = %v, want an error saying the token was refused", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the refusal took %s", d)
	}
	if strings.Contains(c.logs.String(), token) {
		t.Error("the bridge logged the token")
	}
}

// checkServerGone kills the server while an import runs: the call gets an
// error naming the server, and the bridge still exits cleanly on EOF.
func checkServerGone(t *testing.T, srv *server, c *client) {
	t.Helper()
	c.progress.onFirst("doomed", srv.kill)
	_, err := c.cs.CallTool(context.Background(), importParams("Never finished", 200, "doomed"))
	if err == nil || !strings.Contains(err.Error(), srv.endpoint) || !strings.Contains(err.Error(), "ended before the call was answered") {
		t.Errorf("tasks_import while the server died = %v, want an error naming %s", err, srv.endpoint)
	}
	_, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_list", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Taskwire server at "+srv.endpoint) {
		t.Errorf("tasks_list after the server died = %v, want an error saying it cannot be reached", err)
	}
	if err := c.cs.Close(); err != nil {
		t.Errorf("closing the session (the bridge's exit) = %v, want a clean exit", err)
	}
}

func importParams(title string, n int, token string) *mcp.CallToolParams {
	drafts := make([]map[string]any, n)
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("%s %d", title, i+1)}
	}
	p := &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{"tasks": drafts}}
	p.SetProgressToken(token)
	return p
}

func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s = %v, %v", name, res, err)
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

// wireMsg is a message the go-sdk session read or wrote.
type wireMsg struct {
	read   bool
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID     json.RawMessage `json:"requestId"`
		ProgressToken any             `json:"progressToken"`
		Name          string          `json:"name"`
		Meta          struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`
}

// messages returns the session's traffic in order.
func (c *client) messages() []wireMsg {
	var out []wireMsg
	for _, line := range c.wire.lines() {
		dir, data, ok := strings.Cut(line, ": ")
		var m wireMsg
		if !ok || json.Unmarshal([]byte(data), &m) != nil {
			continue
		}
		m.read = dir == "read"
		out = append(out, m)
	}
	return out
}

// sent returns the requests of method the client wrote.
func (c *client) sent(method string) []wireMsg {
	var out []wireMsg
	for _, m := range c.messages() {
		if !m.read && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// checkSilentAfterCancel checks that the cancelled call with progress
// token got no reply at all, and no progress after the reply to the next
// request the client sent: the bridge reads its input in order, so by then
// it had seen the cancellation.
func (c *client) checkSilentAfterCancel(t *testing.T, token string) {
	t.Helper()
	msgs := c.messages()
	var callID, nextID string
	cancelledAt := -1
	for i, m := range msgs {
		switch {
		case !m.read && m.Method == "tools/call" && m.Params.Meta.ProgressToken == token:
			callID = string(m.ID)
		case !m.read && m.Method == "notifications/cancelled" && callID != "" && string(m.Params.RequestID) == callID:
			cancelledAt = i
		case !m.read && m.ID != nil && cancelledAt >= 0 && nextID == "":
			nextID = string(m.ID)
		}
	}
	if cancelledAt < 0 || nextID == "" {
		t.Fatalf("found no notifications/cancelled for the call with progress token %q and a request after it", token)
	}
	answeredNext := false
	for _, m := range msgs {
		switch {
		case !m.read:
		case m.Method == "" && string(m.ID) == callID:
			t.Errorf("the cancelled call %s got a reply", callID)
		case m.Method == "" && string(m.ID) == nextID:
			answeredNext = true
		case answeredNext && m.Method == "notifications/progress" && m.Params.ProgressToken == token:
			t.Errorf("progress of the cancelled call arrived after the bridge had seen the cancellation")
		}
	}
}

// progressLog records progress notifications by token, and can act on the
// first one of a token.
type progressLog struct {
	mu      sync.Mutex
	got     map[any][]float64
	actions map[any]func()
}

func (p *progressLog) record(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	if p.got == nil {
		p.got = map[any][]float64{}
	}
	tok := r.Params.ProgressToken
	p.got[tok] = append(p.got[tok], r.Params.Progress)
	act := p.actions[tok]
	delete(p.actions, tok)
	p.mu.Unlock()
	if act != nil {
		act()
	}
}

// onFirst runs act when the first progress of token arrives.
func (p *progressLog) onFirst(token any, act func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.actions == nil {
		p.actions = map[any]func(){}
	}
	p.actions[token] = act
}

func (p *progressLog) of(token any) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]float64(nil), p.got[token]...)
}

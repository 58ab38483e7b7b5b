package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/internal/events/natstest"

	"github.com/google/go-cmp/cmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

func toolNames(tools []mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// readTools are the BoardService tools that only read.
var readTools = []string{"boards_list", "boards_get", "members_list", "context_get", "tasks_get", "tasks_list", "tasks_search", "comments_list"}

func TestToolsFilteredByScope(t *testing.T) {
	b := newBackend(t, startWorker(t, &testBoard{}, nil), Config{})
	for _, tc := range []struct {
		caller identity.Caller
		want   []string
	}{
		{identity.Caller{Tenant: "acme", Member: 7}, nil},
		{identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"admin"}}, nil},
		{reader, readTools},
		{commenter, []string{"boards_list", "boards_get", "members_list", "context_get", "context_add", "tasks_get", "tasks_list", "tasks_search", "comments_list", "comments_add", "comments_edit"}},
		{writer, []string{"boards_list", "boards_get", "members_list", "context_get", "context_add",
			"tasks_get", "tasks_list", "tasks_search", "tasks_create", "tasks_update", "tasks_move", "tasks_assign", "tasks_flag",
			"tasks_delete", "tasks_restore", "tasks_import", "comments_list", "comments_add", "comments_edit"}},
	} {
		tools, err := b.Tools(context.Background(), tc.caller)
		if err != nil {
			t.Errorf("Tools(scopes %q) = %v", tc.caller.Scopes, err)
			continue
		}
		if diff := cmp.Diff(tc.want, toolNames(tools)); diff != "" {
			t.Errorf("Tools(scopes %q) names (-want +got):\n%s", tc.caller.Scopes, diff)
		}
	}
}

// TestToolsFilteredByRole: a viewer's token may hold every scope, but only
// the tools that read are listed; a member who left the tenant gets no list.
func TestToolsFilteredByRole(t *testing.T) {
	b := newBackend(t, startWorker(t, &testBoard{}, nil), Config{})
	tools, err := b.Tools(context.Background(), viewer)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTools, toolNames(tools)); diff != "" {
		t.Errorf("Tools(viewer) names (-want +got):\n%s", diff)
	}
	_, err = b.Tools(context.Background(), departed)
	var re *mcp.RevokedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "not in its tenant") {
		t.Errorf("Tools(departed member) = %v, want a RevokedError (401) saying why", err)
	}
}

// TestRoleRefusalIsToolError: what a role forbids is a tool result the
// model reads, not the 403 that asks the client for a stronger token.
func TestRoleRefusalIsToolError(t *testing.T) {
	board := &testBoard{}
	b := newBackend(t, startWorker(t, board, nil), Config{})
	res, err := b.CallTool(context.Background(), viewer, &mcp.ToolCall{Name: "tasks_import", Arguments: json.RawMessage(`{"tasks":[{"title":"x"}]}`)}, nil)
	if err != nil {
		t.Fatalf("CallTool(viewer, tasks_import) = %v, want an isError result", err)
	}
	want := "You are a viewer on tenant acme, and viewers can only read: you cannot import tasks (tasks_import needs write). Ask an owner or admin of acme for a role that allows write."
	if got := resultText(t, res); !res.IsError || got != want {
		t.Errorf("CallTool(viewer, tasks_import) = isError %v %q, want isError %q", res.IsError, got, want)
	}
	if got := board.calls.Load(); got != 0 {
		t.Errorf("board calls = %d, want 0", got)
	}
}

// TestWorkerScopeRefusalIs403: should the worker find a token's scope
// short where the front door did not (a catalogue older than the
// worker's), the client still gets the 403 that lets it step up.
func TestWorkerScopeRefusalIs403(t *testing.T) {
	b := newBackend(t, startWorker(t, &testBoard{}, nil), Config{})
	refused := access.InsufficientScope("tasks_get", "write", "This token lacks the write scope needed by tasks_get.")
	res, err := b.failure(context.Background(), "tasks_get", refused)
	var se *mcp.ScopeError
	if !errors.As(err, &se) || *se != (mcp.ScopeError{Tool: "tasks_get", Scope: "write"}) {
		t.Errorf("failure(insufficient scope) = %+v, %v; want a ScopeError for write", res, err)
	}
}

func TestToolsAreTheCatalogDefinitions(t *testing.T) {
	b := newBackend(t, startWorker(t, &testBoard{}, nil), Config{})
	cat, _ := testCatalog()
	tools, err := b.Tools(context.Background(), writer)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		ct, ok := cat.Lookup(tool.Name)
		if !ok {
			t.Errorf("Tools(write) lists %s, which the catalogue lacks", tool.Name)
			continue
		}
		if diff := cmp.Diff(ct.Def, tool); diff != "" {
			t.Errorf("Tools(write) definition of %s (-catalogue +got):\n%s", tool.Name, diff)
		}
	}
}

func TestCallUnknownTool(t *testing.T) {
	board := &testBoard{}
	b := newBackend(t, startWorker(t, board, nil), Config{})
	res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_archive", Arguments: json.RawMessage(`{}`)}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("CallTool(tasks_archive) = %+v, %v; want a *jsonrpc.Error", res, err)
	}
	if je.Code != jsonrpc.InvalidParams || !strings.Contains(je.Message, "tasks_archive") {
		t.Errorf("CallTool(tasks_archive) error = %d %q, want %d naming the tool", je.Code, je.Message, jsonrpc.InvalidParams)
	}
	if got := board.calls.Load(); got != 0 {
		t.Errorf("board calls = %d, want 0", got)
	}
}

func TestCallWithoutScope(t *testing.T) {
	board := &testBoard{}
	b := newBackend(t, startWorker(t, board, nil), Config{})
	for _, tc := range []struct {
		caller identity.Caller
		tool   string
		args   string
		want   mcp.ScopeError
	}{
		{reader, "tasks_create", `{"title":"x"}`, mcp.ScopeError{Tool: "tasks_create", Scope: "write"}},
		{reader, "comments_add", `{"ref":"T-1","body":"hi"}`, mcp.ScopeError{Tool: "comments_add", Scope: "comment"}},
		{commenter, "tasks_import", `{"tasks":[{"title":"x"}]}`, mcp.ScopeError{Tool: "tasks_import", Scope: "write"}},
		{identity.Caller{Tenant: "acme", Member: 7}, "tasks_get", `{"ref":"T-1"}`, mcp.ScopeError{Tool: "tasks_get", Scope: "read"}},
	} {
		res, err := b.CallTool(context.Background(), tc.caller, &mcp.ToolCall{Name: tc.tool, Arguments: json.RawMessage(tc.args)}, nil)
		var se *mcp.ScopeError
		if !errors.As(err, &se) {
			t.Errorf("CallTool(%s, scopes %q) = %+v, %v; want a *mcp.ScopeError", tc.tool, tc.caller.Scopes, res, err)
			continue
		}
		if *se != tc.want {
			t.Errorf("CallTool(%s, scopes %q) error = %+v, want %+v", tc.tool, tc.caller.Scopes, *se, tc.want)
		}
	}
	if got := board.calls.Load(); got != 0 {
		t.Errorf("board calls = %d, want 0: refused calls must not reach the worker", got)
	}
}

// TestCallBadArguments: arguments that do not fit the inputSchema are a
// tool execution error the model can act on — a result with isError whose
// text names each problem, the problems also in the result's _meta — and
// never reach the worker (MCP 2026-07-28 server/tools, "Error Handling").
func TestCallBadArguments(t *testing.T) {
	board := &testBoard{}
	b := newBackend(t, startWorker(t, board, nil), Config{})
	for _, tc := range []struct {
		tool, args string
		want       string // a problem must say this
	}{
		{"tasks_get", `{}`, "ref is missing"},
		{"tasks_get", `{"include_comments":true}`, "ref is missing"},
		{"tasks_get", `{"ref":7}`, "ref must be a string, not a number"},
		{"tasks_get", `{"ref":"T-1","include_comments":"yes"}`, "include_comments must be a boolean, not a string"},
		{"tasks_get", `{"ref":"T-1","colour":"red"}`, "colour is not an argument of this tool"},
		{"tasks_move", `{"ref":"T-1","lane":"LANE_DOING"}`, `lane must be one of "backlog", "next", "doing", "done", not "LANE_DOING"`},
		{"tasks_move", `{"ref":"T-1","lane":"archived"}`, `not "archived"`},
		{"tasks_move", `{"ref":"T-1","position":4611686018427387904}`, "position must be at most 2147483647, not 4611686018427387904"},
		{"tasks_move", `{"ref":"T-1","position":-1}`, "position must be at least 0, not -1"},
		{"comments_edit", `{"id":9223372036854775808,"body":"x"}`, "id must be at most 2147483647, not 9223372036854775808"},
		{"tasks_list", `{"limit":500}`, "limit must be at most 100, not 500"},
		{"tasks_list", `{"limit":"many"}`, "limit must be an integer, not a string"},
		{"tasks_list", `{"updated_since":"2020'; DROP TABLE tasks;--"}`, "updated_since must be a time in RFC 3339 form"},
		{"tasks_list", `{"updated_since":"10000-01-01T00:00:00Z"}`, "updated_since must be a time in RFC 3339 form"},
		{"tasks_list", `{"label":"a\u0000b"}`, "label has U+0000 NULL at character 2"},
		{"tasks_import", `{"tasks":[{"title":"ok"},{"note":"no title"}]}`, "tasks[1].title is missing"},
	} {
		res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: tc.tool, Arguments: json.RawMessage(tc.args)}, nil)
		if err != nil || res == nil || !res.IsError {
			t.Errorf("CallTool(%s, %s) = %+v, %v; want a result with isError", tc.tool, tc.args, res, err)
			continue
		}
		text := res.Content[0].Text
		if !strings.Contains(text, tc.want) || !strings.Contains(text, "call "+tc.tool+" again") {
			t.Errorf("CallTool(%s, %s) text = %q, want it to say %q and to call %s again", tc.tool, tc.args, text, tc.want, tc.tool)
		}
		if !strings.Contains(strings.Join(res.Problems, "\n"), tc.want) {
			t.Errorf("CallTool(%s, %s) problems = %q, want one saying %q", tc.tool, tc.args, res.Problems, tc.want)
		}
	}
	if got := board.calls.Load(); got != 0 {
		t.Errorf("board calls = %d, want 0: arguments that do not fit must not reach the worker", got)
	}
}

// TestCallArgumentsNotAnObject: arguments that are not an object fail the
// CallToolRequest schema itself, which stays a JSON-RPC -32602.
func TestCallArgumentsNotAnObject(t *testing.T) {
	b := newBackend(t, startWorker(t, &testBoard{}, nil), Config{})
	for _, args := range []string{`[1]`, `"ref"`, `{"ref":`} {
		res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_get", Arguments: json.RawMessage(args)}, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams || !strings.Contains(je.Message, "object") {
			t.Errorf("CallTool(tasks_get, %s) = %+v, %v; want -32602 saying the arguments must be an object", args, res, err)
		}
	}
}

// fixLogin is the task the success tests read.
func fixLogin() *taskwirev1.Task {
	return &taskwirev1.Task{Ref: "T-3", Board: "main", Title: "Fix login", Lane: taskwirev1.Lane_LANE_DOING,
		Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Version: 2, CreatedBy: "alice"}
}

func TestCallSuccess(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []identity.Caller
		reqs []*taskwirev1.GetTaskRequest
	)
	board := &testBoard{getTask: func(ctx context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
		c, _ := identity.FromContext(ctx)
		mu.Lock()
		seen, reqs = append(seen, c), append(reqs, req)
		mu.Unlock()
		resp := &taskwirev1.GetTaskResponse{Task: fixLogin()}
		if req.GetIncludeComments() {
			resp.Comments = []*taskwirev1.Comment{{Id: 1, Task: "T-3", Author: "bob", AuthorKind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Body: "Cookie expiry."}}
		}
		return resp, nil
	}}
	b := newBackend(t, startWorker(t, board, nil), Config{})
	cat, _ := testCatalog()
	get, _ := cat.Lookup("tasks_get")

	for _, tc := range []struct {
		caller     identity.Caller
		args       string
		structured string
	}{{
		caller:     reader,
		args:       `{"ref":"T-3"}`,
		structured: `{"task":{"ref":"T-3","board":"main","title":"Fix login","lane":"doing","kind":"bug","version":2,"created_by":"alice"}}`,
	}, {
		caller: writer,
		args:   `{"ref":"T-3","include_comments":true}`,
		structured: `{"task":{"ref":"T-3","board":"main","title":"Fix login","lane":"doing","kind":"bug","version":2,"created_by":"alice"},` +
			`"comments":[{"id":1,"task":"T-3","author":"bob","author_kind":"assistant","body":"Cookie expiry."}]}`,
	}} {
		res, err := b.CallTool(context.Background(), tc.caller, &mcp.ToolCall{Name: "tasks_get", Arguments: json.RawMessage(tc.args)}, nil)
		if err != nil {
			t.Fatalf("CallTool(tasks_get, %s) = %v", tc.args, err)
		}
		if res.IsError {
			t.Errorf("CallTool(tasks_get, %s) isError = true, want false", tc.args)
		}
		// A read's text is its structuredContent, every field and trust
		// mark included, for models that read only text.
		if got := resultText(t, res); got != string(res.StructuredContent) {
			t.Errorf("CallTool(tasks_get, %s) text = %q, want the structuredContent %s", tc.args, got, res.StructuredContent)
		}
		var got, want any
		if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
			t.Fatalf("structuredContent %s: %v", res.StructuredContent, err)
		}
		if err := json.Unmarshal([]byte(tc.structured), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CallTool(tasks_get, %s) structuredContent (-want +got):\n%s", tc.args, diff)
		}
		mustMatchOutputSchema(t, get.Def, res.StructuredContent)
	}

	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]identity.Caller{reader, writer}, seen); diff != "" {
		t.Errorf("callers seen by the board (-want +got):\n%s", diff)
	}
	if len(reqs) == 2 && (reqs[0].GetRef() != "T-3" || reqs[0].GetIncludeComments() || !reqs[1].GetIncludeComments()) {
		t.Errorf("requests seen by the board = %v, want ref T-3 without, then with, comments", reqs)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	cat, err := testCatalog()
	if err != nil {
		t.Fatal(err)
	}
	conn := startWorker(t, &testBoard{}, nil)
	nc := natstest.Connect(t, natstest.Start(t))
	for name, cfg := range map[string]Config{
		"no catalog":         {Conn: conn},
		"no connection":      {Catalog: cat},
		"NATS without an ID": {Catalog: cat, Conn: conn, NATS: nc},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%s) = nil error, want an error", name)
		}
	}
}

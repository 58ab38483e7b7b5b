package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// fullBackend returns a Backend with the catalogue the front door serves
// (every tool service), over a worker serving board.
func fullBackend(t *testing.T, board *testBoard) (*Backend, *catalog.Catalog) {
	t.Helper()
	cat, err := catalog.New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatalf("catalog.New: %v", err)
	}
	b, err := New(Config{Catalog: cat, Conn: startWorker(t, board, nil), ID: "fd-test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return b, cat
}

// TestReadTokenSeesOnlyReadTools: over the whole catalogue, a read token
// of a member is shown every read-only tool meant for members and no tool
// that changes anything.
func TestReadTokenSeesOnlyReadTools(t *testing.T) {
	b, cat := fullBackend(t, &testBoard{})
	tools, err := b.Tools(context.Background(), reader)
	if err != nil {
		t.Fatal(err)
	}
	listed := toolNames(tools)
	for _, tool := range cat.Tools() {
		readOnly := *tool.Def.Annotations.ReadOnlyHint
		shown := slices.Contains(listed, tool.Def.Name)
		switch {
		case !readOnly && shown:
			t.Errorf("a read token is shown %s, which is not read-only", tool.Def.Name)
		case readOnly && tool.MinRole == "" && !shown:
			t.Errorf("a read token is not shown %s, which only reads", tool.Def.Name)
		}
	}
}

// TestToolsFilteredByToolset: a token limited to toolsets is shown only
// their tools, its scopes and role narrowing them further; no limit shows
// every toolset.
func TestToolsFilteredByToolset(t *testing.T) {
	b, cat := fullBackend(t, &testBoard{})
	inToolsets := func(scope string, toolsets ...string) []string {
		var out []string
		for _, tool := range cat.Tools() {
			if (len(toolsets) == 0 || slices.Contains(toolsets, tool.Toolset)) && tool.MinRole == "" &&
				(scope != "read" || *tool.Def.Annotations.ReadOnlyHint) {
				out = append(out, tool.Def.Name)
			}
		}
		return out
	}
	limited := func(c identity.Caller, toolsets ...string) identity.Caller {
		c.Toolsets = toolsets
		return c
	}
	for _, tc := range []struct {
		caller identity.Caller
		want   []string
	}{
		{limited(writer, "tasks", "comments"), inToolsets("write", "tasks", "comments")},
		{limited(writer, "work"), []string{"work_approve", "work_next", "work_heartbeat", "work_release", "work_complete"}},
		{limited(reader, "comments"), []string{"comments_list"}},
		{limited(writer, "audit"), nil}, // audit_list is for admins; the test worker's callers are members
		{writer, inToolsets("write")},
	} {
		tools, err := b.Tools(context.Background(), tc.caller)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, toolNames(tools)); diff != "" {
			t.Errorf("Tools(scopes %v, toolsets %v) (-want +got):\n%s", tc.caller.Scopes, tc.caller.Toolsets, diff)
		}
	}
}

// TestCallOutsideToolsets: the front door refuses a tool outside the
// token's toolsets before any worker sees the call, naming the toolsets.
func TestCallOutsideToolsets(t *testing.T) {
	board := &testBoard{}
	b, _ := fullBackend(t, board)
	c := writer
	c.Toolsets = []string{"tasks", "comments"}
	res, err := b.CallTool(context.Background(), c, &mcp.ToolCall{Name: "work_next", Arguments: json.RawMessage(`{}`)}, nil)
	var te *mcp.ToolsetError
	if !errors.As(err, &te) {
		t.Fatalf("CallTool(work_next, toolsets tasks,comments) = %+v, %v; want a *mcp.ToolsetError", res, err)
	}
	want := "This token is limited to the toolsets tasks, comments, and work_next is in the work toolset; ask an admin for a token that includes work."
	if te.Tool != "work_next" || te.Toolset != "work" || !slices.Equal(te.Toolsets, c.Toolsets) || te.Message != want {
		t.Errorf("ToolsetError = %+v, want work_next of work for tasks,comments saying %q", te, want)
	}

	// Inside its toolsets the same token reaches the worker.
	board.getTask = func(context.Context, *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
		return &taskwirev1.GetTaskResponse{Task: &taskwirev1.Task{Ref: "T-1"}}, nil
	}
	if res, err := b.CallTool(context.Background(), c, &mcp.ToolCall{Name: "tasks_get", Arguments: json.RawMessage(`{"ref":"T-1"}`)}, nil); err != nil || res.IsError {
		t.Errorf("CallTool(tasks_get, toolsets tasks,comments) = %+v, %v; want success", res, err)
	}
	if got := board.calls.Load(); got != 1 {
		t.Errorf("board calls = %d, want 1: only the allowed call reaches the worker", got)
	}
}

// TestWorkerToolsetRefusalIs403: should a front door let a call outside
// the token's toolsets through, the worker refuses it, and the client
// still gets the same 403 as from the front door.
func TestWorkerToolsetRefusalIs403(t *testing.T) {
	board := &testBoard{}
	b, cat := fullBackend(t, board)
	tool, _ := cat.Lookup("tasks_get")
	c := reader
	c.Toolsets = []string{"comments"}
	call := &mcp.ToolCall{Name: "tasks_get", Arguments: json.RawMessage(`{"ref":"T-1"}`)}
	var resp proto.Message = &taskwirev1.GetTaskResponse{}
	// invoke skips the front door's own check (request), as a bug would.
	err := b.invoke(context.Background(), c, tool, call, &taskwirev1.GetTaskRequest{Ref: "T-1"}, resp, nil)
	if err == nil {
		t.Fatal("the worker ran tasks_get for a token limited to comments")
	}
	res, err := b.failure(context.Background(), "tasks_get", err)
	var te *mcp.ToolsetError
	if !errors.As(err, &te) || te.Toolset != "tasks" || !slices.Equal(te.Toolsets, []string{"comments"}) {
		t.Errorf("failure(worker refusal) = %+v, %v; want a ToolsetError for tasks, token limited to comments", res, err)
	}
	if got := board.calls.Load(); got != 0 {
		t.Errorf("board calls = %d, want 0", got)
	}
}

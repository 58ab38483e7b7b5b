package frontdoor

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
)

// backendOf is the backend of golden conversation file: the conversations
// of testdata/tasks talk to a backend that runs MCP tasks (and so
// advertises the extension); nil is the golden backend.
func backendOf(file string) ToolBackend {
	if strings.HasPrefix(file, "testdata/tasks/") {
		return &taskFake{fakeBackend: goldenBackend()}
	}
	return nil
}

// taskFake is the golden backend with MCP tasks: tasks_import of a
// client declaring the extension runs as task "T1-working"; tasks/get
// knows one task of each status.
type taskFake struct {
	*fakeBackend
}

var _ TaskBackend = (*taskFake)(nil)

// fakeTask is a task of the fake in status, with the fields every task has.
func fakeTask(id, status string) *mcp.Task {
	return &mcp.Task{TaskID: id, Status: status, StatusMessage: "The call is " + strings.ReplaceAll(status, "_", " ") + ".",
		CreatedAt: "2026-09-01T12:00:00Z", LastUpdatedAt: "2026-09-01T12:00:01Z", TTLMs: 3600000, PollIntervalMs: 1000}
}

func (b *taskFake) CallTool(ctx context.Context, c identity.Caller, call *mcp.ToolCall, report progress.Reporter) (*mcp.CallToolResult, error) {
	if call.Name == "tasks_import" && call.Tasks {
		return &mcp.CallToolResult{Task: fakeTask("T1-working", mcp.TaskWorking)}, nil
	}
	if call.Name == "tasks_delete" && call.Tasks { // a person's own, to confirm
		t := fakeTask("T1-input_required!form", mcp.TaskInputRequired)
		t.StatusMessage = fakeQuestion
		return &mcp.CallToolResult{Task: t}, nil
	}
	return b.fakeBackend.CallTool(ctx, c, call, report)
}

func (b *taskFake) GetTask(_ context.Context, _ identity.Caller, id string, _ json.RawMessage) (*mcp.Task, error) {
	status, variant, _ := strings.Cut(strings.TrimPrefix(id, "T1-"), "!")
	t := fakeTask(id, status)
	switch status {
	case mcp.TaskWorking, mcp.TaskCancelled:
	case mcp.TaskCompleted:
		t.Result = &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("imported 150 tasks")}, StructuredContent: json.RawMessage(`{"imported":150}`)}
	case mcp.TaskFailed:
		t.Error = &jsonrpc.Error{Code: jsonrpc.Internal, Message: "The worker running this call stopped before it finished, and nothing of it was saved: run the call again."}
	case mcp.TaskInputRequired:
		if variant == "form" { // a person's own confirmation
			t.StatusMessage, t.InputRequests = fakeQuestion, map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create", Params: fakeForm}}
			break
		}
		t.InputRequests = map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create",
			Params: mcp.NewElicitURL("Delete task T-12?", "https://taskwire.example/t/acme/decisions/D1", "D1")}}
	default:
		return nil, unknownTask(id)
	}
	return t, nil
}

func (b *taskFake) UpdateTask(ctx context.Context, c identity.Caller, id string, caps, _ json.RawMessage) error {
	_, err := b.GetTask(ctx, c, id, caps)
	return err
}

func (b *taskFake) CancelTask(ctx context.Context, c identity.Caller, id string) error {
	_, err := b.GetTask(ctx, c, id, nil)
	return err
}

// fakeQuestion is the confirm question of the fake's tasks_delete, and
// fakeForm the form asking it, as toolcall's confirmForm writes it.
const fakeQuestion = "Delete task T-12? It can be restored later with tasks_restore."

var fakeForm = map[string]any{
	"mode": "form", "message": fakeQuestion,
	"requestedSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"confirm": map[string]any{"type": "boolean", "title": "Confirm", "description": fakeQuestion}},
		"required":   []any{"confirm"},
	},
}

func unknownTask(id string) error {
	return jsonrpc.Errorf(jsonrpc.InvalidParams, "Failed to retrieve task: No MCP task %q is known to you: it never existed or has expired. Make the call again.", id)
}

package frontdoor

import (
	"context"
	"encoding/json"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// The MCP Tasks extension (io.modelcontextprotocol/tasks): a tools/call
// of a client that declares it may be answered with a task (resultType
// "task") instead of its result: a tasks_import of many drafts, or a
// call waiting for a person's decision. The client polls it with
// tasks/get, answers it with tasks/update and stops it with tasks/cancel,
// through any front door. These tasks are protocol operations, not the
// tasks of a board. Requests that do not declare the extension get
// -32021 from the tasks/ methods, and never a task from tools/call.

// TaskBackend is a ToolBackend that runs calls as MCP tasks: a front
// door whose backend is one advertises the extension and serves the
// tasks/ methods. Each method sees only c's own tasks: another member's
// id is refused exactly as one that never existed (-32602).
type TaskBackend interface {
	// GetTask returns where task id stands; caps are the capabilities
	// this request declared.
	GetTask(ctx context.Context, c identity.Caller, id string, caps json.RawMessage) (*mcp.Task, error)
	// UpdateTask takes the client's answers (inputResponses, an object)
	// to task id; caps are the capabilities this request declared.
	UpdateTask(ctx context.Context, c identity.Caller, id string, caps, responses json.RawMessage) error
	// CancelTask asks for task id to stop; a finished task stays as is.
	CancelTask(ctx context.Context, c identity.Caller, id string) error
}

// taskBackend is the configured backend's TaskBackend, nil if it has none.
func (h *Handler) taskBackend() TaskBackend {
	tb, _ := h.cfg.Tools.(TaskBackend)
	return tb
}

// declaresTasks tells whether this request may get MCP tasks: a modern
// one that declared the extension, to a front door that serves it.
func (x *exchange) declaresTasks(caps json.RawMessage) bool {
	return !x.legacy && x.h.taskBackend() != nil && mcp.Declares(caps, mcp.ExtensionTasks)
}

// createTaskResult answers a tools/call with the task it runs as.
type createTaskResult struct {
	resultHead
	*mcp.Task
}

func (x *exchange) createTask(t *mcp.Task) createTaskResult {
	head := x.head()
	head.ResultType = mcp.ResultTask
	return createTaskResult{resultHead: head, Task: t}
}

// getTaskResult is a task with what its status carries inlined.
type getTaskResult struct {
	resultHead
	*mcp.Task
	Result        json.RawMessage             `json:"result,omitempty"`
	Error         *jsonrpc.Error              `json:"error,omitempty"`
	InputRequests map[string]mcp.InputRequest `json:"inputRequests,omitempty"`
}

// taskParams reads the taskId of a tasks/ request, after checking that
// the request declared the extension.
func (x *exchange) taskParams() (TaskBackend, string, error) {
	tb := x.h.taskBackend()
	if tb == nil {
		return nil, "", jsonrpc.Errorf(jsonrpc.MethodNotFound, "method not found: %s (this server runs no MCP tasks)", x.req.method)
	}
	if !x.declaresTasks(x.req.meta[mcp.MetaClientCapabilities]) {
		return nil, "", &jsonrpc.Error{
			Code:    jsonrpc.MissingRequiredClientCapability,
			Message: x.req.method + " needs the " + mcp.ExtensionTasks + " extension declared in this request's client capabilities",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}},
		}
	}
	id, ok := str(x.req.params, "taskId")
	if !ok {
		return nil, "", jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.taskId must be a string")
	}
	return tb, id, nil
}

// getTask answers tasks/get.
func (x *exchange) getTask() (any, error) {
	tb, id, err := x.taskParams()
	if err != nil {
		return nil, err
	}
	t, err := tb.GetTask(x.r.Context(), x.caller, id, x.req.meta[mcp.MetaClientCapabilities])
	if err != nil {
		return nil, err
	}
	out := getTaskResult{resultHead: x.head(), Task: t, Error: t.Error, InputRequests: t.InputRequests}
	if t.Result != nil {
		res := *t.Result
		if res.Content == nil {
			res.Content = []mcp.Content{}
		}
		if out.Result, err = (callToolResult{resultHead: x.head(), CallToolResult: &res}).AppendJSON(nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateTask answers tasks/update with an acknowledgement.
func (x *exchange) updateTask() (any, error) {
	tb, id, err := x.taskParams()
	if err != nil {
		return nil, err
	}
	if r := x.req.params["inputResponses"]; !isObject(r) {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.inputResponses must be an object")
	}
	if err := tb.UpdateTask(x.r.Context(), x.caller, id, x.req.meta[mcp.MetaClientCapabilities], x.req.params["inputResponses"]); err != nil {
		return nil, err
	}
	return x.head(), nil
}

// cancelTask answers tasks/cancel with an acknowledgement; the task's
// status tells, on the next tasks/get, whether it stopped.
func (x *exchange) cancelTask() (any, error) {
	tb, id, err := x.taskParams()
	if err != nil {
		return nil, err
	}
	if err := tb.CancelTask(x.r.Context(), x.caller, id); err != nil {
		return nil, err
	}
	return x.head(), nil
}

package mcp

import (
	"encoding/json"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// ExtensionTasks names the MCP Tasks extension (SEP-2663): a tools/call
// may be answered with a task (resultType "task") that the client polls
// with tasks/get and stops with tasks/cancel. Its tasks are protocol
// operations, not the tasks of a board. Only a request that declares it
// in its client capabilities may get one.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTask is the resultType of a CreateTaskResult.
const ResultTask = "task"

// The statuses of a task. completed, failed and cancelled are final.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Task is where an MCP task stands: the members of a CreateTaskResult
// and of a tasks/get result besides resultType and _meta.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"` // RFC 3339
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTLMs         int64  `json:"ttlMs"`
	// PollIntervalMs is how often the client should poll.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// Result is the tool's result of a completed task, Error the JSON-RPC
	// error of a failed one, InputRequests what an input_required one
	// waits for; tasks/get inlines them (result, error, inputRequests).
	Result        *CallToolResult         `json:"-"`
	Error         *jsonrpc.Error          `json:"-"`
	InputRequests map[string]InputRequest `json:"-"`
}

// Declares tells whether the ClientCapabilities caps declare extension.
func Declares(caps json.RawMessage, extension string) bool {
	_, ok := Extension(caps, extension)
	return ok
}

// Extension returns what the ClientCapabilities caps declare for
// extension (its settings object), and whether they declare it at all.
func Extension(caps json.RawMessage, extension string) (json.RawMessage, bool) {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return nil, false
	}
	settings, ok := c.Extensions[extension]
	return settings, ok
}

package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// BackgroundImport is the most drafts a tasks_import runs while its
// client waits; a larger one, from a client that declared the MCP Tasks
// extension, runs in the background as an MCP task.
const BackgroundImport = 100

// background tells, by method, which calls run as MCP tasks for the
// clients that declared the extension: the long ones. The workers run
// only the methods they list too (operations.Background).
var background = map[string]func(req proto.Message) bool{
	taskwirev1.BoardService_ImportTasks_FullMethodName: func(req proto.Message) bool {
		r, ok := req.(*taskwirev1.ImportTasksRequest)
		return ok && len(r.GetTasks()) > BackgroundImport
	},
	// The conformance suite's fixtures of the extension.
	conformancev1.ConformanceService_SlowCompute_FullMethodName: func(req proto.Message) bool {
		r, ok := req.(*conformancev1.SlowComputeRequest)
		return ok && r.GetSeconds() > 0
	},
	conformancev1.ConformanceService_FailingJob_FullMethodName:       always,
	conformancev1.ConformanceService_ProtocolErrorJob_FullMethodName: always,
	conformancev1.ConformanceService_ConfirmDelete_FullMethodName:    always,
	conformancev1.ConformanceService_MultiInput_FullMethodName:       always,
	// The retry carrying the name runs as a task; the first round asks
	// for it as a call the client waits for.
	conformancev1.ConformanceService_ToolWithTask_FullMethodName: func(req proto.Message) bool {
		r, ok := req.(*conformancev1.ToolWithTaskRequest)
		return ok && len(r.GetInput().GetResponses()) > 0
	},
}

func always(proto.Message) bool { return true }

// taskOnly lists the methods that run only as MCP tasks: a client that
// did not declare the extension gets -32021 naming it (SEP-2663,
// "Required Capabilities").
var taskOnly = map[string]bool{
	conformancev1.ConformanceService_FailingJob_FullMethodName: true,
}

// needsTasks is the refusal of tool, which runs only as an MCP task, to
// a request that did not declare the extension.
func needsTasks(tool string) error {
	return &jsonrpc.Error{
		Code:    jsonrpc.MissingRequiredClientCapability,
		Message: tool + " runs only as an MCP task, and this request did not declare the " + mcp.ExtensionTasks + " extension",
		Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}},
	}
}

// operationTimeout bounds one call of OperationService.
const operationTimeout = 30 * time.Second

// startTask starts call in the background on the workers, as c, and
// returns the MCP task that the client polls. With a decision (wait's
// DecisionId), the call waits for a person to approve it (its request
// carries the decision as its confirmation); with a question (wait's
// Confirm), for the person at the client to confirm it; the task is
// input_required meanwhile.
func (b *Backend) startTask(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, req proto.Message, wait *taskwirev1.StartOperationRequest) (*mcp.CallToolResult, error) {
	raw, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, operationTimeout)
	defer cancel()
	ctx = labelContext(traceContext(identity.AppendToOutgoing(ctx, c), call), call)
	resp, err := taskwirev1.NewOperationServiceClient(b.cfg.Conn).StartOperation(ctx,
		&taskwirev1.StartOperationRequest{Method: t.FullMethod, Request: raw, DecisionId: wait.GetDecisionId(), Confirm: wait.GetConfirm()})
	if err != nil {
		return b.failure(ctx, call.Name, err)
	}
	task, err := b.task(ctx, c, resp.GetOperation(), call.ClientCapabilities)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Task: task}, nil
}

// GetTask returns where c's MCP task id stands, with the tool's result
// once it completed; caps are the capabilities the poll declared.
func (b *Backend) GetTask(ctx context.Context, c identity.Caller, id string, caps json.RawMessage) (*mcp.Task, error) {
	ctx, cancel := context.WithTimeout(ctx, operationTimeout)
	defer cancel()
	resp, err := taskwirev1.NewOperationServiceClient(b.cfg.Conn).GetOperation(identity.AppendToOutgoing(ctx, c),
		&taskwirev1.GetOperationRequest{Id: id})
	if err != nil {
		return nil, taskFailure(err)
	}
	return b.task(ctx, c, resp.GetOperation(), caps)
}

// UpdateTask takes the client's answers to c's MCP task id: a call that
// asked for input runs again once all are in (taskinput.go). A person's
// decision, made in the console, is what no answer of the client
// replaces: such answers are acknowledged and the task moves on when the
// person decides. An unknown id is refused as in GetTask.
func (b *Backend) UpdateTask(ctx context.Context, c identity.Caller, id string, caps, responses json.RawMessage) error {
	ctx, cancel := context.WithTimeout(ctx, operationTimeout)
	defer cancel()
	resp, err := taskwirev1.NewOperationServiceClient(b.cfg.Conn).GetOperation(identity.AppendToOutgoing(ctx, c),
		&taskwirev1.GetOperationRequest{Id: id})
	if err != nil {
		return taskFailure(err)
	}
	op := resp.GetOperation()
	if op.GetState() != taskwirev1.OperationState_OPERATION_STATE_INPUT_REQUIRED || op.GetDecisionId() != "" {
		return nil
	}
	return b.answerTask(ctx, c, op, caps, responses)
}

// CancelTask asks the workers to stop c's MCP task id.
func (b *Backend) CancelTask(ctx context.Context, c identity.Caller, id string) error {
	ctx, cancel := context.WithTimeout(ctx, operationTimeout)
	defer cancel()
	_, err := taskwirev1.NewOperationServiceClient(b.cfg.Conn).CancelOperation(identity.AppendToOutgoing(ctx, c),
		&taskwirev1.CancelOperationRequest{Id: id})
	if err != nil {
		return taskFailure(err)
	}
	return nil
}

// taskFailure translates a failure of OperationService: an id the caller
// does not have is -32602, as SEP-2663 asks; the rest as for asking for
// the caller's access.
func taskFailure(err error) error {
	if st := status.Convert(err); st.Code() == codes.NotFound {
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "Failed to retrieve task: %s", st.Message())
	}
	return accessFailure(err)
}

// taskStatuses maps an operation's state to its task's status.
var taskStatuses = map[taskwirev1.OperationState]string{
	taskwirev1.OperationState_OPERATION_STATE_WORKING:        mcp.TaskWorking,
	taskwirev1.OperationState_OPERATION_STATE_INPUT_REQUIRED: mcp.TaskInputRequired,
	taskwirev1.OperationState_OPERATION_STATE_COMPLETED:      mcp.TaskCompleted,
	taskwirev1.OperationState_OPERATION_STATE_FAILED:         mcp.TaskFailed,
	taskwirev1.OperationState_OPERATION_STATE_CANCELLED:      mcp.TaskCancelled,
}

// task is the MCP task of op: a completed one carries the tool's result,
// rendered here as for a call the client waited for, or is failed when
// the call ended in what a client gets as a JSON-RPC error.
func (b *Backend) task(ctx context.Context, c identity.Caller, op *taskwirev1.Operation, caps json.RawMessage) (*mcp.Task, error) {
	task := &mcp.Task{
		TaskID: op.GetId(), Status: taskStatuses[op.GetState()], StatusMessage: op.GetStatusMessage(),
		CreatedAt:     op.GetCreateTime().AsTime().UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: op.GetUpdateTime().AsTime().UTC().Format(time.RFC3339Nano),
		TTLMs:         op.GetTtlMs(), PollIntervalMs: op.GetPollIntervalMs(),
	}
	switch op.GetState() {
	case taskwirev1.OperationState_OPERATION_STATE_INPUT_REQUIRED:
		if op.GetDecisionId() == "" {
			return b.inputTask(c, task, op, caps)
		}
		return b.waitingTask(c, task, op, caps)
	case taskwirev1.OperationState_OPERATION_STATE_COMPLETED:
		res, err := b.operationResult(ctx, c, op)
		if err != nil {
			b.log.ErrorContext(ctx, "toolcall: an MCP task's result could not be given", "task", op.GetId(), "method", op.GetMethod(), "error", err)
			task.Status, task.Error = mcp.TaskFailed, &jsonrpc.Error{Code: jsonrpc.Internal, Message: "The call failed inside Taskwire: run it again."}
			return task, nil
		}
		task.Result = res
	case taskwirev1.OperationState_OPERATION_STATE_FAILED:
		msg, err := statusOf(op.GetError())
		if err != nil {
			return nil, err
		}
		task.Error = &jsonrpc.Error{Code: jsonrpc.Internal, Message: msg.Message()}
	}
	return task, nil
}

// waitingTask is task, whose call waits for a person's decision: a
// client that declared URL elicitation is asked to send its user to the
// decision's page (input_required); another is told that the task waits
// and where (working), since it could not answer that request.
func (b *Backend) waitingTask(c identity.Caller, task *mcp.Task, op *taskwirev1.Operation, caps json.RawMessage) (*mcp.Task, error) {
	page, err := b.decisionURL(c.Tenant, op.GetDecisionId())
	if err != nil {
		return nil, err
	}
	msg := op.GetStatusMessage() + " Only a person of " + c.Tenant + " can approve this, on the decision's page or in the console's inbox; this task goes on once they decide."
	task.StatusMessage = msg
	if !urlElicitation(caps) {
		task.Status = mcp.TaskWorking
		return task, nil
	}
	task.InputRequests = map[string]mcp.InputRequest{confirmKey: {Method: "elicitation/create", Params: mcp.NewElicitURL(msg, page, op.GetDecisionId())}}
	return task, nil
}

// operationResult is the tool result of completed operation op: its
// response rendered, or its error translated as failure does.
func (b *Backend) operationResult(ctx context.Context, c identity.Caller, op *taskwirev1.Operation) (*mcp.CallToolResult, error) {
	t := b.toolOf(op.GetMethod())
	if t == nil {
		return nil, fmt.Errorf("no tool calls %s", op.GetMethod())
	}
	if len(op.GetError()) > 0 {
		st, err := statusOf(op.GetError())
		if err != nil {
			return nil, err
		}
		return b.failure(context.WithoutCancel(ctx), t.Def.Name, st.Err())
	}
	resp, err := t.NewResponse()
	if err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(op.GetResponse(), resp); err != nil {
		return nil, err
	}
	return b.result(c, t, &mcp.ToolCall{Name: t.Def.Name}, resp)
}

// toolOf is the tool of the gRPC method, nil if there is none.
func (b *Backend) toolOf(method string) *catalog.Tool {
	for _, t := range b.cfg.Catalog.Tools() {
		if t.FullMethod == method {
			return t
		}
	}
	return nil
}

// statusOf reads a serialized google.rpc.Status.
func statusOf(raw []byte) (*status.Status, error) {
	var sp spb.Status
	if err := proto.Unmarshal(raw, &sp); err != nil {
		return nil, errors.New("toolcall: an operation's status cannot be read: " + err.Error())
	}
	return status.FromProto(&sp), nil
}

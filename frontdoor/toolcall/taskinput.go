package toolcall

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A call running as an MCP task may ask the client for input, as a call
// the client waits for does (an InputRequired response field): the
// operation then waits, input_required, its requests shown by tasks/get.
// The client answers with tasks/update, one request at a time if it
// likes; once every request is answered, the call runs again on the
// workers with the answers and the call's own state in its ClientInput,
// as a retry would carry them. No requestState goes to the client: the
// state stays in the database. A person's own confirmation of a tool
// with a confirm question (tasks_delete) waits the same way: its one
// request is the form a call the client waits for gets (confirmForm),
// and the answer runs the call with a confirmation of its own, or ends
// the task with the tool result a refusal gets.

// inputTask is task, whose call waits for the client's input: its
// requests not answered yet.
func (b *Backend) inputTask(c identity.Caller, task *mcp.Task, op *taskwirev1.Operation, caps json.RawMessage) (*mcp.Task, error) {
	t, ir, answered, err := b.asked(op)
	if err != nil {
		return nil, err
	}
	pending := &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{}, State: ir.GetState()}
	for k, r := range ir.GetRequests() {
		if _, ok := answered[k]; !ok {
			pending.Requests[k] = r
		}
	}
	round, err := b.rounds.Required(binding(c, &mcp.ToolCall{Name: t.Def.Name}), pending, caps)
	if err != nil {
		return nil, err
	}
	task.InputRequests = round.InputRequests
	return task, nil
}

// asked reads what op's call asked for, and the answers so far.
func (b *Backend) asked(op *taskwirev1.Operation) (*catalog.Tool, *mcpv1.InputRequired, map[string]json.RawMessage, error) {
	t := b.toolOf(op.GetMethod())
	answered := map[string]json.RawMessage{}
	if raw := op.GetInputResponses(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &answered); err != nil {
			return nil, nil, nil, err
		}
	}
	if confirming(t, op) {
		form, err := structpb.NewStruct(confirmForm(op.GetStatusMessage()))
		if err != nil {
			return nil, nil, nil, err
		}
		return t, &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{confirmKey: {Method: "elicitation/create", Params: form}}}, answered, nil
	}
	if t == nil || t.InputRequiredField == nil || t.ClientInputField == nil {
		return nil, nil, nil, fmt.Errorf("toolcall: no tool of %s asks for input", op.GetMethod())
	}
	resp, err := t.NewResponse()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := proto.Unmarshal(op.GetResponse(), resp); err != nil {
		return nil, nil, nil, err
	}
	ir, err := getMessage(resp.ProtoReflect(), t.InputRequiredField, &mcpv1.InputRequired{})
	if err != nil {
		return nil, nil, nil, err
	}
	return t, ir, answered, nil
}

// confirming tells whether op, waiting for the client's input, waits for
// the person to confirm its question (status message) rather than for
// what its call asked: nothing answered it yet.
func confirming(t *catalog.Tool, op *taskwirev1.Operation) bool {
	return t != nil && t.Confirm != "" && len(op.GetResponse()) == 0
}

// answerTask takes the client's answers to op, waiting for its input:
// those to requests still pending count, others are ignored. Once every
// request is answered, the call runs again.
func (b *Backend) answerTask(ctx context.Context, c identity.Caller, op *taskwirev1.Operation, caps, responses json.RawMessage) error {
	t, ir, answered, err := b.asked(op)
	if err != nil {
		return err
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(responses, &given); err != nil {
		return err
	}
	for k, v := range given {
		if _, asked := ir.GetRequests()[k]; asked {
			answered[k] = v
		}
	}
	raw, err := json.Marshal(answered)
	if err != nil {
		return err
	}
	update := &taskwirev1.UpdateOperationRequest{Id: op.GetId(), InputResponses: raw}
	switch {
	case len(answered) < len(ir.GetRequests()):
	case confirming(t, op):
		if err := confirmed(t, op, raw, update); err != nil {
			return err
		}
	default:
		if update.Request, err = b.retryRequest(t, op.GetRequest(), ir.GetState(), answered, caps); err != nil {
			return err
		}
	}
	_, err = taskwirev1.NewOperationServiceClient(b.cfg.Conn).UpdateOperation(identity.AppendToOutgoing(ctx, c), update)
	if err != nil {
		return taskFailure(err)
	}
	return nil
}

// retryRequest is request, serialized, with its ClientInput carrying the
// answers and state as a retry of the call would.
func (b *Backend) retryRequest(t *catalog.Tool, request, state []byte, answered map[string]json.RawMessage, caps json.RawMessage) ([]byte, error) {
	in := &mcpv1.ClientInput{Responses: map[string]*structpb.Struct{}, State: state, Retry: true}
	for k, v := range answered {
		st := &structpb.Struct{}
		if err := st.UnmarshalJSON(v); err != nil {
			return nil, fmt.Errorf("toolcall: the answer under %q is not an object", k)
		}
		in.Responses[k] = st
	}
	if len(caps) > 0 {
		in.Capabilities = &structpb.Struct{}
		if err := in.Capabilities.UnmarshalJSON(caps); err != nil {
			return nil, err
		}
	}
	req := dynamicpb.NewMessage(t.ClientInputField.ContainingMessage())
	if err := proto.Unmarshal(request, req); err != nil {
		return nil, err
	}
	if err := setMessage(req, t.ClientInputField, in); err != nil {
		return nil, err
	}
	return proto.Marshal(req)
}

// confirmed completes update, answering op, which waits for the person
// to confirm its question, from their answers: confirmed, the request
// runs with a confirmation of its own, which the worker uses up with the
// change; declined, the call is not made and the task ends with the
// refusal a call the client waits for gets. An answer that is not one
// (no action) leaves the task waiting, as a retry without one is asked
// again.
func confirmed(t *catalog.Tool, op *taskwirev1.Operation, answers json.RawMessage, update *taskwirev1.UpdateOperationRequest) error {
	yes, answered := confirmAnswer(answers)
	switch {
	case !answered:
		update.InputResponses = nil
	case yes:
		req := dynamicpb.NewMessage(t.ConfirmationField.ContainingMessage())
		if err := proto.Unmarshal(op.GetRequest(), req); err != nil {
			return err
		}
		req.Set(t.ConfirmationField, protoreflect.ValueOfString(rand.Text()))
		raw, err := proto.Marshal(req)
		if err != nil {
			return err
		}
		update.Request = raw
	default:
		raw, err := proto.Marshal(status.New(codes.PermissionDenied, notConfirmed(op.GetStatusMessage())).Proto())
		if err != nil {
			return err
		}
		update.Refusal = raw
	}
	return nil
}

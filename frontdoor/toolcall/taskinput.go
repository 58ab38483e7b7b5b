package toolcall

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"
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
// state stays in the database.

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
	answered := map[string]json.RawMessage{}
	if raw := op.GetInputResponses(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &answered); err != nil {
			return nil, nil, nil, err
		}
	}
	return t, ir, answered, nil
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
	if len(answered) == len(ir.GetRequests()) {
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

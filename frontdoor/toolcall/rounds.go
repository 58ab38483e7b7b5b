package toolcall

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A tool whose messages carry MCP's own shapes (see catalog) speaks to
// the client through the front door: its request gets the client's
// capabilities and answers (ClientInput), its response may ask the client
// for input (InputRequired), which the front door seals into an
// input_required result, or set the result's content blocks itself
// (ToolOutput).

// fill sets the request fields the front door owns: the id of a person's
// confirmation, the client's input. A result or error it returns is sent
// instead of calling the worker.
func (b *Backend) fill(ctx context.Context, c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, req proto.Message) (*mcp.CallToolResult, error) {
	if t.Confirm != "" {
		id, res, err := b.confirm(ctx, c, t, call)
		if w := (*awaiting)(nil); errors.As(err, &w) {
			req.ProtoReflect().Set(t.ConfirmationField, protoreflect.ValueOfString(w.decision))
			return b.startTask(ctx, c, t, call, req, &taskwirev1.StartOperationRequest{DecisionId: w.decision, Confirm: w.confirm})
		}
		if err != nil || res != nil {
			return res, err
		}
		req.ProtoReflect().Set(t.ConfirmationField, protoreflect.ValueOfString(id))
	}
	if t.ClientInputField != nil {
		in, err := b.rounds.Input(binding(c, call), call.ClientCapabilities, call.InputResponses, call.RequestState)
		if err != nil {
			return nil, err
		}
		if err := setMessage(req.ProtoReflect(), t.ClientInputField, in); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// result turns the worker's response into the tool's result: the input
// round it asks for, or its content blocks (its own, else the response
// rendered as text) with the structuredContent its outputSchema promises.
func (b *Backend) result(c identity.Caller, t *catalog.Tool, call *mcp.ToolCall, resp proto.Message) (*mcp.CallToolResult, error) {
	m := resp.ProtoReflect()
	if fd := t.InputRequiredField; fd != nil && m.Has(fd) {
		ir, err := getMessage(m, fd, &mcpv1.InputRequired{})
		if err != nil {
			return nil, err
		}
		round, err := b.rounds.Required(binding(c, call), ir, call.ClientCapabilities)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{InputRequired: round}, nil
	}
	structured, err := t.EncodeResult(resp)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{StructuredContent: structured}
	if fd := t.OutputField; fd != nil && m.Has(fd) {
		out, err := getMessage(m, fd, &mcpv1.ToolOutput{})
		if err != nil {
			return nil, err
		}
		res.Content, res.IsError = mcp.ContentsFromProto(out.GetContent()), out.GetIsError()
		return res, nil
	}
	res.Content = []mcp.Content{mcp.TextContent(render(resp, structured))}
	return res, nil
}

// binding is what the request state of a tool call is bound to: the
// caller, the tool and its arguments.
func binding(c identity.Caller, call *mcp.ToolCall) mrtr.Binding {
	return mrtr.Binding{Tenant: c.Tenant, Member: c.Member, Target: "tools/call " + call.Name, Args: call.Arguments}
}

// getMessage returns the message in field fd of m as the generated type
// of into. A message built from descriptors alone (dynamicpb) holds its
// own type there, which is copied over the wire format instead.
func getMessage[T proto.Message](m protoreflect.Message, fd protoreflect.FieldDescriptor, into T) (T, error) {
	v := m.Get(fd).Message().Interface()
	if same, ok := v.(T); ok {
		return same, nil
	}
	raw, err := proto.Marshal(v)
	if err != nil {
		return into, fmt.Errorf("toolcall: reading %s: %w", fd.FullName(), err)
	}
	if err := proto.Unmarshal(raw, into); err != nil {
		return into, fmt.Errorf("toolcall: reading %s: %w", fd.FullName(), err)
	}
	return into, nil
}

// setMessage sets field fd of m to v, copying over the wire format when
// m's field has another Go type than v (see getMessage).
func setMessage(m protoreflect.Message, fd protoreflect.FieldDescriptor, v proto.Message) error {
	if m.NewField(fd).Message().Type() == v.ProtoReflect().Type() {
		m.Set(fd, protoreflect.ValueOfMessage(v.ProtoReflect()))
		return nil
	}
	raw, err := proto.Marshal(v)
	if err != nil {
		return fmt.Errorf("toolcall: filling %s: %w", fd.FullName(), err)
	}
	return proto.Unmarshal(raw, m.Mutable(fd).Message().Interface())
}

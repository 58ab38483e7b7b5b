package catalog

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A tool's messages may carry MCP's own shapes (taskwire/mcp/v1/mcp.proto)
// as fields the front door handles itself rather than show the model: a
// request's ClientInput (what the client declared and answered), a
// response's ToolOutput (content blocks, isError) and InputRequired (a
// round of questions for the client). They are recognised by type, so a
// worker declares them like any field, and they stay out of the schemas.
const (
	clientInputName   protoreflect.FullName = "taskwire.mcp.v1.ClientInput"
	toolOutputName    protoreflect.FullName = "taskwire.mcp.v1.ToolOutput"
	inputRequiredName protoreflect.FullName = "taskwire.mcp.v1.InputRequired"
)

// shapeName is the full name of fd's type if that is one of MCP's shapes,
// else "".
func shapeName(fd protoreflect.FieldDescriptor) protoreflect.FullName {
	if fd.Message() == nil {
		return ""
	}
	switch n := fd.Message().FullName(); n {
	case clientInputName, toolOutputName, inputRequiredName:
		return n
	}
	return ""
}

// shapes are the fields of one RPC's messages that have MCP's shapes.
type shapes struct {
	clientInput   protoreflect.FieldDescriptor
	output        protoreflect.FieldDescriptor
	inputRequired protoreflect.FieldDescriptor
}

// findShapes finds the shape fields of md's request and response. Each
// shape has its side and occurs at most once, singular: the front door
// must know which field to fill or read without guessing. A response that
// can ask for input needs a request that can carry the answers back, or
// the tool could never finish.
func findShapes(md protoreflect.MethodDescriptor) (shapes, error) {
	var s shapes
	if err := scanShapes(md.Input(), "request", map[protoreflect.FullName]*protoreflect.FieldDescriptor{
		clientInputName: &s.clientInput,
	}); err != nil {
		return s, err
	}
	if err := scanShapes(md.Output(), "response", map[protoreflect.FullName]*protoreflect.FieldDescriptor{
		toolOutputName:    &s.output,
		inputRequiredName: &s.inputRequired,
	}); err != nil {
		return s, err
	}
	if s.inputRequired != nil && s.clientInput == nil {
		return s, fmt.Errorf("%s can ask for input (%s) but %s has no %s field to bring the answers back",
			md.Output().FullName(), s.inputRequired.Name(), md.Input().FullName(), clientInputName)
	}
	return s, nil
}

// scanShapes records the shape fields of message md, the RPC's side, in
// slots, the shapes allowed on that side.
func scanShapes(md protoreflect.MessageDescriptor, side string, slots map[protoreflect.FullName]*protoreflect.FieldDescriptor) error {
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := shapeName(fd)
		if name == "" {
			continue
		}
		slot, ok := slots[name]
		switch {
		case !ok:
			return fmt.Errorf("%s: a %s field does not belong in the %s message", fd.FullName(), name, side)
		case fd.IsList():
			return fmt.Errorf("%s: a %s field must be singular, not repeated", fd.FullName(), name)
		case *slot != nil:
			return fmt.Errorf("%s and %s are both %s; a %s message may have one", (*slot).FullName(), fd.FullName(), name, side)
		}
		*slot = fd
	}
	return nil
}

// onlyShapes reports whether every field of md has one of MCP's shapes:
// such a response has nothing structured to show.
func onlyShapes(md protoreflect.MessageDescriptor) bool {
	fields := md.Fields()
	for i := range fields.Len() {
		if shapeName(fields.Get(i)) == "" {
			return false
		}
	}
	return true
}

// Package catalog derives the MCP tool catalogue from the gRPC contract:
// every RPC marked with the (taskwire.mcp.v1.tool) option becomes one tool,
// whose inputSchema comes from the request message and outputSchema from the
// response message. Adding a tool means adding an RPC; nothing here lists
// tools by hand.
package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
)

// Tool is one tool of the catalogue together with what the front door needs
// to call it.
type Tool struct {
	Def   mcp.Tool // the definition tools/list shows
	Scope string   // the token scope the tool needs
	// Toolset groups the tool (authz.AllToolsets); a token limited to
	// toolsets sees and calls only their tools.
	Toolset string
	// MinRole is the weakest member role the tool is for, "" for any
	// role its scope allows.
	MinRole string
	// Confirm is the question a person must answer yes to before each
	// call, with "{arg}" placeholders; empty for tools that need none.
	Confirm string
	// ConfirmAssistantsOnly says only an assistant's call is confirmed
	// (by a person's decision); a person's own call runs unasked.
	ConfirmAssistantsOnly bool
	// ConfirmationField receives the id of the person's confirmation.
	ConfirmationField protoreflect.FieldDescriptor
	// ClientInputField, when set, is the request field (of type
	// taskwire.mcp.v1.ClientInput) the front door fills with what the
	// client declared and answered; the model never sets it.
	ClientInputField protoreflect.FieldDescriptor
	// OutputField, when set, is the response field (ToolOutput) holding
	// the result's content blocks; InputRequiredField the one
	// (InputRequired) by which the worker asks the client for input.
	// Neither is part of the outputSchema or the structuredContent.
	OutputField        protoreflect.FieldDescriptor
	InputRequiredField protoreflect.FieldDescriptor
	// ParamHeaders are the arguments clients mirror into Mcp-Param
	// headers (x-mcp-header in the inputSchema), which the front door
	// compares with the arguments of every call.
	ParamHeaders []mcp.ParamHeader
	FullMethod   string // gRPC method, e.g. "/taskwire.v1.BoardService/GetTask"
	Method       protoreflect.MethodDescriptor
	input        *jsonschema.Schema
	// always are the response fields marked required: in the result even
	// when empty, as the outputSchema promises.
	always []protoreflect.FieldDescriptor
}

// Catalog is the set of tools derived from one or more gRPC services, in
// declaration order.
type Catalog struct {
	tools  []*Tool
	byName map[string]*Tool
}

// New builds the catalogue of the named services, which must be linked into
// the binary (their generated Go registers them). source is a serialized
// FileDescriptorSet of the same files with source info, from which field
// comments become schema descriptions; it may be nil.
func New(source []byte, services ...string) (*Catalog, error) {
	docs, err := readComments(source)
	if err != nil {
		return nil, err
	}
	c := &Catalog{byName: map[string]*Tool{}}
	for _, name := range services {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			return nil, fmt.Errorf("catalog: service %s: %w", name, err)
		}
		sd, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			return nil, fmt.Errorf("catalog: %s is not a service", name)
		}
		if err := c.addService(sd, docs); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Catalog) addService(sd protoreflect.ServiceDescriptor, docs comments) error {
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		opt, ok := proto.GetExtension(md.Options(), mcpv1.E_Tool).(*mcpv1.Tool)
		if !ok || opt == nil || opt.GetName() == "" {
			continue
		}
		t, err := newTool(md, opt, docs)
		if err != nil {
			return fmt.Errorf("catalog: %s: %w", md.FullName(), err)
		}
		if _, dup := c.byName[t.Def.Name]; dup {
			return fmt.Errorf("catalog: tool name %q used twice", t.Def.Name)
		}
		c.tools = append(c.tools, t)
		c.byName[t.Def.Name] = t
	}
	return nil
}

func newTool(md protoreflect.MethodDescriptor, opt *mcpv1.Tool, docs comments) (*Tool, error) {
	if md.IsStreamingClient() || md.IsStreamingServer() {
		return nil, fmt.Errorf("streaming RPCs cannot be tools")
	}
	if err := checkToolset(opt.GetToolset()); err != nil {
		return nil, err
	}
	sh, err := findShapes(md)
	if err != nil {
		return nil, err
	}
	if opt.GetConfirmAssistantsOnly() && opt.GetConfirm() == "" {
		return nil, fmt.Errorf("confirm_assistants_only needs the confirm question the person answers")
	}
	if opt.GetConfirm() != "" && sh.clientInput != nil {
		// Both would carry their rounds in the one requestState.
		return nil, fmt.Errorf("a tool that asks for confirmation cannot also take %s", clientInputName)
	}
	inJSON, outJSON, err := schemas(md, docs, sh, opt.GetInputSchema())
	if err != nil {
		return nil, err
	}
	headers, err := mcp.ParamHeaders(inJSON)
	if err != nil {
		return nil, err
	}
	compiled, err := compile(opt.GetName(), inJSON)
	if err != nil {
		return nil, err
	}
	cf, err := confirmationField(md.Input(), opt.GetConfirm())
	if err != nil {
		return nil, err
	}
	always, err := alwaysFields(md.Output())
	if err != nil {
		return nil, err
	}
	return &Tool{
		always:                always,
		ParamHeaders:          headers,
		Confirm:               opt.GetConfirm(),
		ConfirmAssistantsOnly: opt.GetConfirmAssistantsOnly(),
		ConfirmationField:     cf,
		ClientInputField:      sh.clientInput,
		OutputField:           sh.output,
		InputRequiredField:    sh.inputRequired,
		Def: mcp.Tool{
			Name:         opt.GetName(),
			Title:        opt.GetTitle(),
			Description:  opt.GetDescription(),
			InputSchema:  inJSON,
			OutputSchema: outJSON,
			Annotations:  annotations(opt),
		},
		Scope:      opt.GetScope(),
		Toolset:    opt.GetToolset(),
		MinRole:    opt.GetMinRole(),
		FullMethod: fmt.Sprintf("/%s/%s", md.Parent().FullName(), md.Name()),
		Method:     md,
		input:      compiled,
	}, nil
}

// checkToolset refuses a tool that belongs to no toolset, or to one no
// token can name (but the conformance suite's), since a token limited to
// toolsets could then never reach it, or could reach it unseen.
func checkToolset(ts string) error {
	switch {
	case ts == "":
		return fmt.Errorf("the tool names no toolset: set toolset to one of %s", strings.Join(authz.AllToolsets, ", "))
	case !authz.ValidToolset(ts) && ts != authz.ToolsetConformance:
		return fmt.Errorf("toolset %q is not known: use one of %s", ts, strings.Join(authz.AllToolsets, ", "))
	}
	return nil
}

// schemas returns the inputSchema and outputSchema of md: the inputSchema
// written in the tool option when there is one, else derived from the
// request. A response that holds nothing but MCP's shapes has no
// outputSchema: its result is its content blocks, and an empty object
// schema would promise structuredContent that says nothing.
func schemas(md protoreflect.MethodDescriptor, docs comments, sh shapes, written string) (in, out json.RawMessage, err error) {
	g := schemaGen{docs: docs}
	if written != "" {
		in, err = writtenSchema(md.Input(), written)
	} else {
		in, err = g.inputSchema(md.Input())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if (sh.output != nil || sh.inputRequired != nil) && onlyShapes(md.Output()) {
		return in, nil, nil
	}
	outObj, err := g.object(md.Output(), false)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	out, err = json.Marshal(outObj)
	return in, out, err
}

// alwaysFields returns the fields of response md marked required, which
// the result always holds: lists (as [] when empty) and scalars other than
// enums, whose zero value means something ("" for no next page).
func alwaysFields(md protoreflect.MessageDescriptor) ([]protoreflect.FieldDescriptor, error) {
	var out []protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !fieldOpt(fd).GetRequired() {
			continue
		}
		switch {
		case fd.IsMap():
			return nil, fmt.Errorf("%s: a map cannot be required in a response", fd.FullName())
		case fd.IsList():
		case fd.Enum() != nil || fd.Message() != nil:
			return nil, fmt.Errorf("%s: only lists and scalars other than enums can be required in a response", fd.FullName())
		case fd.HasPresence():
			return nil, fmt.Errorf("%s: an optional field cannot be required in a response", fd.FullName())
		}
		out = append(out, fd)
	}
	return out, nil
}

// confirmationField finds the request field that carries a confirmation
// id. A tool that asks for confirmation must have exactly one, and a tool
// that does not must have none.
func confirmationField(md protoreflect.MessageDescriptor, confirm string) (protoreflect.FieldDescriptor, error) {
	var found protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !fieldOpt(fd).GetConfirmation() {
			continue
		}
		if found != nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
			return nil, fmt.Errorf("%s: a confirmation field must be the only one and a single string", fd.FullName())
		}
		found = fd
	}
	if (found != nil) != (confirm != "") {
		return nil, fmt.Errorf("confirm and a confirmation field go together")
	}
	return found, nil
}

// annotations states every hint explicitly: the protocol's defaults assume a
// destructive, open-world tool, which is rarely what a board tool is.
func annotations(opt *mcpv1.Tool) *mcp.ToolAnnotations {
	b := func(v bool) *bool { return &v }
	a := &mcp.ToolAnnotations{
		ReadOnlyHint:   b(opt.GetReadOnly()),
		IdempotentHint: b(opt.GetIdempotent()),
		OpenWorldHint:  b(opt.GetOpenWorld()),
	}
	if !opt.GetReadOnly() {
		a.DestructiveHint = b(opt.GetDestructive())
	}
	return a
}

// Tools returns every tool, in declaration order.
func (c *Catalog) Tools() []*Tool { return c.tools }

// Lookup returns the tool called name.
func (c *Catalog) Lookup(name string) (*Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

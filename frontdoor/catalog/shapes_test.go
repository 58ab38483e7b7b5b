package catalog_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
)

// shapesPackage is a contract built at run time, so that these tests can
// hold tools the real contracts must never have.
const shapesPackage = "taskwire.catalogtest.v1"

type fieldSpec struct {
	name     string
	typeName string // a message's full name; empty for a string
	repeated bool
}

func message(name string, fields ...fieldSpec) *descriptorpb.DescriptorProto {
	m := &descriptorpb.DescriptorProto{Name: proto.String(name)}
	for i, f := range fields {
		fd := &descriptorpb.FieldDescriptorProto{
			Name:     proto.String(f.name),
			JsonName: proto.String(f.name),
			Number:   proto.Int32(int32(i + 1)),
			Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:     descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
		}
		if f.typeName != "" {
			fd.Type, fd.TypeName = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), proto.String("."+f.typeName)
		}
		if f.repeated {
			fd.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		}
		m.Field = append(m.Field, fd)
	}
	return m
}

// service is the service nameService of one tool, name in lower case.
func service(name, in, out, confirm string) *descriptorpb.ServiceDescriptorProto {
	opts := &descriptorpb.MethodOptions{}
	proto.SetExtension(opts, mcpv1.E_Tool, &mcpv1.Tool{Name: strings.ToLower(name), Scope: "read", Toolset: "tasks", Confirm: confirm})
	return &descriptorpb.ServiceDescriptorProto{
		Name: proto.String(name + "Service"),
		Method: []*descriptorpb.MethodDescriptorProto{{
			Name: proto.String("Call"), InputType: proto.String("." + shapesPackage + "." + in),
			OutputType: proto.String("." + shapesPackage + "." + out), Options: opts,
		}},
	}
}

// registerShapes adds the contract to the global registries, as generated
// code would, once per test binary.
var registerShapes = sync.OnceValue(func() error {
	const (
		clientInput   = "taskwire.mcp.v1.ClientInput"
		toolOutput    = "taskwire.mcp.v1.ToolOutput"
		inputRequired = "taskwire.mcp.v1.InputRequired"
	)
	local := func(n string) string { return shapesPackage + "." + n }
	file := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("taskwire/catalogtest/v1/shapes.proto"),
		Package:    proto.String(shapesPackage),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"taskwire/mcp/v1/mcp.proto"},
		MessageType: []*descriptorpb.DescriptorProto{
			message("Empty"),
			message("AskRequest", fieldSpec{"topic", "", false}, fieldSpec{"input", clientInput, false}),
			message("AskResponse", fieldSpec{"summary", "", false}, fieldSpec{"output", toolOutput, false}, fieldSpec{"input_required", inputRequired, false}),
			message("OutputOnly", fieldSpec{"output", toolOutput, false}),
			message("AskOnly", fieldSpec{"input_required", inputRequired, false}),
			message("TwoOutputs", fieldSpec{"a", toolOutput, false}, fieldSpec{"b", toolOutput, false}),
			message("RepeatedOutput", fieldSpec{"outputs", toolOutput, true}),
			message("InputInResponse", fieldSpec{"input", clientInput, false}),
			message("Nested", fieldSpec{"inner", local("OutputOnly"), false}),
		},
		Service: []*descriptorpb.ServiceDescriptorProto{
			service("Ask", "AskRequest", "AskResponse", ""),
			service("Show", "Empty", "OutputOnly", ""),
			service("TwoOutputs", "Empty", "TwoOutputs", ""),
			service("RepeatedOutput", "Empty", "RepeatedOutput", ""),
			service("InputInResponse", "Empty", "InputInResponse", ""),
			service("OutputInRequest", "OutputOnly", "Empty", ""),
			service("Nested", "Empty", "Nested", ""),
			service("NoAnswers", "Empty", "AskOnly", ""),
			service("Confirmed", "AskRequest", "AskResponse", "Sure?"),
		},
	}
	fd, err := protodesc.NewFile(file, protoregistry.GlobalFiles)
	if err != nil {
		return err
	}
	if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
		return err
	}
	msgs := fd.Messages()
	for i := range msgs.Len() {
		if err := protoregistry.GlobalTypes.RegisterMessage(dynamicpb.NewMessageType(msgs.Get(i))); err != nil {
			return err
		}
	}
	return nil
})

func shapesCatalog(t *testing.T, services ...string) (*catalog.Catalog, error) {
	t.Helper()
	if err := registerShapes(); err != nil {
		t.Fatalf("registering the test contract: %v", err)
	}
	for i, s := range services {
		services[i] = shapesPackage + "." + s + "Service"
	}
	return catalog.New(nil, services...)
}

// TestShapesRecognised: MCP's own shapes are found by type, kept out of
// the schemas, and a response of nothing but shapes has no outputSchema.
func TestShapesRecognised(t *testing.T) {
	c, err := shapesCatalog(t, "Ask", "Show")
	if err != nil {
		t.Fatalf("catalog.New = %v", err)
	}
	ask, _ := c.Lookup("ask")
	name := func(fd protoreflect.FieldDescriptor) string {
		if fd == nil {
			return ""
		}
		return string(fd.Name())
	}
	if got := [3]string{name(ask.ClientInputField), name(ask.OutputField), name(ask.InputRequiredField)}; got != [3]string{"input", "output", "input_required"} {
		t.Errorf("ask shape fields = %q, want input, output, input_required", got)
	}
	if want := `{"type":"object","properties":{"topic":{"type":"string"}},"additionalProperties":false}`; string(ask.Def.InputSchema) != want {
		t.Errorf("ask inputSchema = %s, want %s", ask.Def.InputSchema, want)
	}
	if want := `{"type":"object","properties":{"summary":{"type":"string"}},"additionalProperties":false}`; string(ask.Def.OutputSchema) != want {
		t.Errorf("ask outputSchema = %s, want %s", ask.Def.OutputSchema, want)
	}
	if _, err := ask.DecodeArguments(json.RawMessage(`{"topic":"x","input":{"retry":true}}`)); err == nil {
		t.Error("ask took a ClientInput from the arguments, want it refused: only the front door fills it")
	}

	resp, _ := ask.NewResponse()
	if err := protojson.Unmarshal([]byte(`{"summary":"s","output":{"content":[{"text":"hi"}]},"input_required":{"state":"AQ=="}}`), resp); err != nil {
		t.Fatal(err)
	}
	structured, err := ask.EncodeResult(resp)
	if err != nil || string(structured) != `{"summary":"s"}` {
		t.Errorf("ask EncodeResult = %s, %v; want only the summary", structured, err)
	}

	show, _ := c.Lookup("show")
	if show.Def.OutputSchema != nil || show.OutputField == nil || show.ClientInputField != nil || show.InputRequiredField != nil {
		t.Errorf("show = outputSchema %s, fields %v/%v/%v; want no outputSchema and the output field only",
			show.Def.OutputSchema, show.ClientInputField, show.OutputField, show.InputRequiredField)
	}
	raw, _ := json.Marshal(show.Def)
	if strings.Contains(string(raw), "outputSchema") {
		t.Errorf("show in tools/list = %s, want no outputSchema member", raw)
	}
	resp, _ = show.NewResponse()
	if structured, err := show.EncodeResult(resp); structured != nil || err != nil {
		t.Errorf("show EncodeResult = %s, %v; want nil: no outputSchema, no structuredContent", structured, err)
	}
}

// TestShapesMisplaced: a contract whose shapes the front door could not
// use unambiguously fails catalog.New, naming the field and the problem.
func TestShapesMisplaced(t *testing.T) {
	for _, tc := range []struct{ service, want string }{
		{"TwoOutputs", "both taskwire.mcp.v1.ToolOutput"},
		{"RepeatedOutput", "must be singular"},
		{"InputInResponse", "does not belong in the response"},
		{"OutputInRequest", "does not belong in the request"},
		{"Nested", "can only be a field of the request or response itself"},
		{"NoAnswers", "no taskwire.mcp.v1.ClientInput field"},
		{"Confirmed", "cannot also take taskwire.mcp.v1.ClientInput"},
	} {
		_, err := shapesCatalog(t, tc.service)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("catalog.New(%s) = %v, want an error saying %q", tc.service, err, tc.want)
		}
	}
}

package catalog_test

import (
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
)

// toolsetsPackage is a contract built at run time whose services each
// hold one tool of the toolset the service is named after.
const toolsetsPackage = "taskwire.catalogtest.toolsets.v1"

var toolsetServices = map[string]string{"Tasks": "tasks", "None": "", "Boards": "boards", "Conformance": "conformance"}

var registerToolsets = sync.OnceValue(func() error {
	file := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("taskwire/catalogtest/toolsets/v1/toolsets.proto"),
		Package:     proto.String(toolsetsPackage),
		Syntax:      proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{message("Empty")},
	}
	for name, toolset := range toolsetServices {
		opts := &descriptorpb.MethodOptions{}
		proto.SetExtension(opts, mcpv1.E_Tool, &mcpv1.Tool{Name: strings.ToLower(name) + "_call", Scope: "read", Toolset: toolset})
		file.Service = append(file.Service, &descriptorpb.ServiceDescriptorProto{
			Name: proto.String(name + "Service"),
			Method: []*descriptorpb.MethodDescriptorProto{{
				Name: proto.String("Call"), InputType: proto.String("." + toolsetsPackage + ".Empty"),
				OutputType: proto.String("." + toolsetsPackage + ".Empty"), Options: opts,
			}},
		})
	}
	fd, err := protodesc.NewFile(file, protoregistry.GlobalFiles)
	if err != nil {
		return err
	}
	if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
		return err
	}
	return protoregistry.GlobalTypes.RegisterMessage(dynamicpb.NewMessageType(fd.Messages().Get(0)))
})

// TestToolsetRequired: catalog.New takes a tool of a known toolset (or
// of the conformance suite's) and refuses one without a toolset or with
// an unknown one, saying which toolsets there are.
func TestToolsetRequired(t *testing.T) {
	if err := registerToolsets(); err != nil {
		t.Fatalf("registering the test contract: %v", err)
	}
	build := func(service string) (*catalog.Catalog, error) {
		return catalog.New(nil, toolsetsPackage+"."+service+"Service")
	}
	c, err := build("Tasks")
	if err != nil {
		t.Fatalf("catalog.New(tasks tool) = %v", err)
	}
	if tool, _ := c.Lookup("tasks_call"); tool.Toolset != "tasks" {
		t.Errorf("tasks_call toolset = %q, want tasks", tool.Toolset)
	}
	if _, err := build("Conformance"); err != nil {
		t.Errorf("catalog.New(conformance tool) = %v, want it accepted", err)
	}
	for service, want := range map[string]string{
		"None":   "names no toolset: set toolset to one of context, tasks, comments, work, audit",
		"Boards": `toolset "boards" is not known: use one of context, tasks, comments, work, audit`,
	} {
		if _, err := build(service); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("catalog.New(%s) = %v, want an error saying %q", service, err, want)
		}
	}
}

// TestConformanceCatalogue: the conformance suite's tools build beside the
// board's, each in the conformance toolset.
func TestConformanceCatalogue(t *testing.T) {
	c, err := catalog.New(nil, conformancev1.ConformanceService_ServiceDesc.ServiceName)
	if err != nil {
		t.Fatalf("catalog.New(conformance) = %v", err)
	}
	for _, tool := range c.Tools() {
		if tool.Toolset != "conformance" {
			t.Errorf("%s toolset = %q, want conformance", tool.Def.Name, tool.Toolset)
		}
	}
}

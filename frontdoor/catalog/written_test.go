package catalog_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

func conformanceTool(t *testing.T, name string) *catalog.Tool {
	t.Helper()
	c, err := catalog.New(nil, conformancev1.ConformanceService_ServiceDesc.ServiceName)
	if err != nil {
		t.Fatalf("catalog.New(conformance) = %v", err)
	}
	tool, ok := c.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool
}

// TestWrittenInputSchema: a tool's input_schema is its inputSchema as
// written, 2020-12 keywords kept, and it holds the arguments to every
// keyword (the if/then/else included) before they reach the request.
func TestWrittenInputSchema(t *testing.T) {
	tool := conformanceTool(t, "json_schema_2020_12_tool")
	var schema map[string]any
	if err := json.Unmarshal(tool.Def.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$schema", "$defs", "allOf", "if", "then", "else", "additionalProperties"} {
		if _, ok := schema[k]; !ok {
			t.Errorf("inputSchema has no %s: %s", k, tool.Def.InputSchema)
		}
	}
	msg, err := tool.DecodeArguments(json.RawMessage(`{"name":"Ada","address":{"city":"London"},"contactMethod":"phone","phone":"+44 20"}`))
	if err != nil {
		t.Fatalf("DecodeArguments(phone) = %v", err)
	}
	req := msg.(*conformancev1.JsonSchema202012Request)
	if req.GetAddress().GetCity() != "London" || req.GetContactMethod() != "phone" || req.GetPhone() != "+44 20" {
		t.Errorf("DecodeArguments(phone) = %v, want the city, the method and the phone", req)
	}
	for args, want := range map[string]string{
		`{"contactMethod":"phone","email":"a@example.com"}`: "phone is missing",
		`{"name":"Ada"}`:                                 "missing",
		`{"email":"a@example.com","x":1}`:                "x is not an argument",
		`{"email":"a@example.com","address":{"city":7}}`: "address.city must be a string",
	} {
		_, err := tool.DecodeArguments(json.RawMessage(args))
		var ae *catalog.ArgumentsError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeArguments(%s) = %v, want an ArgumentsError saying %q", args, err, want)
		}
	}
}

// TestWrittenSchemaRefused: an input_schema that is no object schema, or
// has a property that names no field a model may set, is refused.
func TestWrittenSchemaRefused(t *testing.T) {
	md := (&conformancev1.JsonSchema202012Request{}).ProtoReflect().Descriptor()
	for schema, want := range map[string]string{
		`{"type":`:         "not a JSON object",
		`{"type":"array"}`: `"type": "object"`,
		`{"type":"object","properties":{"nom":{}}}`: `property "nom" is no field`,
	} {
		if _, err := catalog.WrittenSchema(md, schema); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("WrittenSchema(%s) = %v, want an error saying %q", schema, err, want)
		}
	}
	got, err := catalog.WrittenSchema(md, "{ \"type\": \"object\",\n \"properties\": {\"contact_method\": {}, \"contactMethod\": {}} }")
	if err != nil || string(got) != `{"type":"object","properties":{"contact_method":{},"contactMethod":{}}}` {
		t.Errorf("WrittenSchema(field and JSON names) = %s, %v; want it compacted", got, err)
	}
}

// TestMcpHeaderOption: a request field's mcp_header becomes the
// x-mcp-header of its property, and the front door reads them back from
// the inputSchema; a response field cannot have one.
func TestMcpHeaderOption(t *testing.T) {
	tool := conformanceTool(t, "test_custom_headers")
	want := []mcp.ParamHeader{
		{Name: "Priority", Path: []string{"priority"}, Type: "integer"},
		{Name: "Region", Path: []string{"region"}, Type: "string"},
		{Name: "Verbose", Path: []string{"verbose"}, Type: "boolean"},
	}
	if diff := cmp.Diff(want, tool.ParamHeaders); diff != "" {
		t.Errorf("ParamHeaders (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(tool.Def.InputSchema), `"x-mcp-header":"Region"`) {
		t.Errorf("inputSchema %s, want x-mcp-header Region", tool.Def.InputSchema)
	}
	if _, err := catalog.ParamHeaderOf(nil, &mcpv1.Field{McpHeader: "Region"}, false); err == nil {
		t.Error("mcp_header on a response field accepted, want it refused")
	}
}

package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// TestParamHeaders: the annotations of a valid inputSchema come out sorted
// by path, nested properties included, and an "x-mcp-header" inside data
// (const, enum, default, examples) is no annotation.
func TestParamHeaders(t *testing.T) {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"target":{"type":"object","properties":{"zone":{"type":"integer","x-mcp-header":"Zone"}}},
		"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},
		"query":{"type":"string","default":{"x-mcp-header":"NotOne"}},
		"x-mcp-header":{"type":"string"}}}`
	got, err := mcp.ParamHeaders(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("ParamHeaders = %v", err)
	}
	want := []mcp.ParamHeader{
		{Name: "Dry-Run", Path: []string{"dry"}, Type: "boolean"},
		{Name: "Region", Path: []string{"region"}, Type: "string"},
		{Name: "Zone", Path: []string{"target", "zone"}, Type: "integer"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParamHeaders (-want +got):\n%s", diff)
	}
	if h := got[2]; h.Header() != "Mcp-Param-Zone" || h.Argument() != "arguments.target.zone" {
		t.Errorf("Header, Argument = %q, %q; want Mcp-Param-Zone, arguments.target.zone", h.Header(), h.Argument())
	}
	if none, err := mcp.ParamHeaders(json.RawMessage(`{"type":"object","additionalProperties":false}`)); none != nil || err != nil {
		t.Errorf("ParamHeaders(no annotation) = %v, %v; want nil, nil", none, err)
	}
}

// TestParamHeadersInvalid: each rule of MCP 2026-07-28 on x-mcp-header
// (the ones the conformance suite's invalid tools break, and reachability)
// refuses the schema with a sentence naming the property.
func TestParamHeadersInvalid(t *testing.T) {
	prop := func(p string) string { return `{"type":"object","properties":{` + p + `}}` }
	tests := map[string]struct{ schema, want string }{
		"empty":          {prop(`"v":{"type":"string","x-mcp-header":""}`), "non-empty"},
		"not a string":   {prop(`"v":{"type":"string","x-mcp-header":7}`), "non-empty string"},
		"object":         {prop(`"v":{"type":"object","x-mcp-header":"Data"}`), "type is object"},
		"array":          {prop(`"v":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}`), "type is array"},
		"null":           {prop(`"v":{"type":"null","x-mcp-header":"Nil"}`), "type is null"},
		"number":         {prop(`"v":{"type":"number","x-mcp-header":"Score"}`), "type is number"},
		"no type":        {prop(`"v":{"x-mcp-header":"V"}`), "type is <nil>"},
		"duplicate":      {prop(`"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}`), "already the header"},
		"duplicate case": {prop(`"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}`), "ignoring case"},
		"space":          {prop(`"v":{"type":"string","x-mcp-header":"My Region"}`), "not an HTTP token"},
		"colon":          {prop(`"v":{"type":"string","x-mcp-header":"Region:Primary"}`), "not an HTTP token"},
		"non-ASCII":      {prop(`"v":{"type":"string","x-mcp-header":"Région"}`), "not an HTTP token"},
		"control":        {prop(`"v":{"type":"string","x-mcp-header":"Region\t1"}`), "not an HTTP token"},
		"root":           {`{"type":"object","x-mcp-header":"Root"}`, "root"},
		"items":          {prop(`"v":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}`), "reached from the root through properties alone"},
		"$defs":          {`{"type":"object","$defs":{"r":{"type":"string","x-mcp-header":"R"}},"properties":{"v":{"$ref":"#/$defs/r"}}}`, "reached from the root"},
		"allOf":          {`{"type":"object","allOf":[{"properties":{"v":{"type":"string","x-mcp-header":"V"}}}]}`, "reached from the root"},
		"then":           {`{"type":"object","if":{"required":["a"]},"then":{"properties":{"v":{"type":"string","x-mcp-header":"V"}}}}`, "reached from the root"},
		"not JSON":       {`{"type":`, "not JSON"},
	}
	for name, tt := range tests {
		got, err := mcp.ParamHeaders(json.RawMessage(tt.schema))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ParamHeaders(%s) = %v, %v; want an error saying %q", name, tt.schema, got, err, tt.want)
		}
	}
}

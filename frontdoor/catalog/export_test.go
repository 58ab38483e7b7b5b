package catalog

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MustMatchOutputSchema fails t when raw does not fit tool's outputSchema.
func MustMatchOutputSchema(t *testing.T, tool *Tool, raw []byte) {
	t.Helper()
	sch, err := compile(tool.Def.Name+"-out", tool.Def.OutputSchema)
	if err != nil {
		t.Fatalf("compile outputSchema of %s: %v", tool.Def.Name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("structuredContent of %s does not fit its outputSchema: %v\n%s", tool.Def.Name, err, raw)
	}
}

// WrittenSchema and ParamHeaderOf expose the checks of a hand-written
// inputSchema and of a field's mcp_header.
var (
	WrittenSchema = writtenSchema
	ParamHeaderOf = paramHeader
)

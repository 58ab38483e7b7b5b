package conformance_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// TestRequestParams checks the params of the requests the suite inspects.
func TestRequestParams(t *testing.T) {
	svc, _ := newService(t)
	byName := tools(svc)
	nameForm := func(message, field string) map[string]any {
		return map[string]any{"message": message, "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}}, "required": []any{field},
		}}
	}
	question := func(text string, maxTokens float64) map[string]any {
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}}, "maxTokens": maxTokens}
	}
	for _, tc := range []struct {
		tool, key string
		in        *mcpv1.ClientInput
		want      map[string]any
	}{
		{tool: "test_sampling", key: "llm", want: question("Say hi", 100)},
		{tool: "test_elicitation", key: "form", want: map[string]any{"mode": "form", "message": "Who are you?", "requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []any{"username", "email"},
		}}},
		{tool: "test_input_required_result_elicitation", key: "user_name", want: nameForm("What is your name?", "name")},
		{tool: "test_input_required_result_sampling", key: "capital_question", want: question("What is the capital of France?", 50)},
		{tool: "test_input_required_result_list_roots", key: "client_roots", want: map[string]any{}},
		{tool: "test_input_required_result_multiple_inputs", key: "greeting", want: question("Generate a greeting", 50)},
		{tool: "test_input_required_result_multiple_inputs", key: "user_name", want: nameForm("What is your name?", "name")},
		{tool: "test_input_required_result_request_state", key: "confirm", want: map[string]any{"message": "Please confirm", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"},
		}}},
	} {
		r, err := byName[tc.tool](asReader(), tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		got := r.GetInputRequired().GetRequests()[tc.key].GetParams().AsMap()
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %s params (-want +got):\n%s", tc.tool, tc.key, diff)
		}
	}
}

// TestFormSchemas checks the forms of SEP-1034 and SEP-1330 field by
// field.
func TestFormSchemas(t *testing.T) {
	svc, _ := newService(t)
	byName := tools(svc)
	props := func(tool string) map[string]any {
		t.Helper()
		r, err := byName[tool](asReader(), nil)
		if err != nil {
			t.Fatal(err)
		}
		params := r.GetInputRequired().GetRequests()["form"].GetParams().AsMap()
		if params["mode"] != "form" {
			t.Errorf("%s mode = %v, want form", tool, params["mode"])
		}
		return params["requestedSchema"].(map[string]any)["properties"].(map[string]any)
	}
	defaults := props("test_elicitation_sep1034_defaults")
	for field, want := range map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true} {
		if got := defaults[field].(map[string]any)["default"]; got != want {
			t.Errorf("default of %s = %v, want %v", field, got, want)
		}
	}
	if diff := cmp.Diff([]any{"active", "inactive", "pending"}, defaults["status"].(map[string]any)["enum"]); diff != "" {
		t.Errorf("status enum (-want +got):\n%s", diff)
	}

	enums := props("test_elicitation_sep1330_enums")
	titled := func(prefix string, titles ...string) []any {
		var out []any
		for i, title := range titles {
			out = append(out, map[string]any{"const": prefix + string(rune('1'+i)), "title": title})
		}
		return out
	}
	for _, tc := range []struct {
		field, path string
		want        any
	}{
		{"untitledSingle", "enum", []any{"option1", "option2", "option3"}},
		{"titledSingle", "oneOf", titled("value", "First Option", "Second Option", "Third Option")},
		{"legacyEnum", "enum", []any{"opt1", "opt2", "opt3"}},
		{"legacyEnum", "enumNames", []any{"Option One", "Option Two", "Option Three"}},
		{"untitledMulti", "items", map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}}},
		{"titledMulti", "items", map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
	} {
		if diff := cmp.Diff(tc.want, enums[tc.field].(map[string]any)[tc.path]); diff != "" {
			t.Errorf("%s.%s (-want +got):\n%s", tc.field, tc.path, diff)
		}
	}
	if enums["untitledMulti"].(map[string]any)["type"] != "array" || enums["titledMulti"].(map[string]any)["type"] != "array" {
		t.Error("multi-select enums are not arrays")
	}
}

func TestArgumentsRequired(t *testing.T) {
	svc, _ := newService(t)
	if _, err := svc.Sampling(asReader(), &conformancev1.SamplingRequest{}); domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("Sampling(no prompt) = %v, want invalid", err)
	}
	if _, err := svc.Elicitation(asReader(), &conformancev1.ElicitationRequest{}); domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("Elicitation(no message) = %v, want invalid", err)
	}
}

package conformance

import (
	"context"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// The fixtures of this file ask once and finish with whatever the client
// answered. A client of the 2025 revisions is asked over its stream by
// the front door, a 2026 client through input_required and its retry;
// the worker sees the same two calls either way.

// Sampling asks the client's model to answer the prompt.
func (s *Service) Sampling(_ context.Context, req *conformancev1.SamplingRequest) (*conformancev1.SamplingResponse, error) {
	if req.GetPrompt() == "" {
		return nil, domainerr.New(domainerr.Invalid, "prompt is empty: give the text to send to the model")
	}
	st := ask(nil, map[string]*mcpv1.InputRequest{"llm": sample(req.GetPrompt(), 100)})
	if a, ok := answer(req.GetInput(), "llm"); ok {
		st = done("LLM response: " + sampledText(a))
	}
	return &conformancev1.SamplingResponse{Output: st.out, InputRequired: st.need}, nil
}

// Elicitation shows the user the message with a form for a username and
// an email address.
func (s *Service) Elicitation(_ context.Context, req *conformancev1.ElicitationRequest) (*conformancev1.ElicitationResponse, error) {
	if req.GetMessage() == "" {
		return nil, domainerr.New(domainerr.Invalid, "message is empty: give the text to show the user above the form")
	}
	st := formRound(req.GetInput(), "User response", request(methodElicit, map[string]any{
		"mode":    "form",
		"message": req.GetMessage(),
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []any{"username", "email"},
		},
	}))
	return &conformancev1.ElicitationResponse{Output: st.out, InputRequired: st.need}, nil
}

// ElicitationSep1034Defaults asks for a form whose every field has a
// default value.
func (s *Service) ElicitationSep1034Defaults(_ context.Context, req *conformancev1.ElicitationSep1034DefaultsRequest) (*conformancev1.ElicitationSep1034DefaultsResponse, error) {
	st := formRound(req.GetInput(), "Elicitation completed", request(methodElicit, map[string]any{
		"mode":    "form",
		"message": "Please review and update the form fields with defaults",
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
			"required": []any{},
		},
	}))
	return &conformancev1.ElicitationSep1034DefaultsResponse{Output: st.out, InputRequired: st.need}, nil
}

// ElicitationSep1330Enums asks for a form with each kind of enum.
func (s *Service) ElicitationSep1330Enums(_ context.Context, req *conformancev1.ElicitationSep1330EnumsRequest) (*conformancev1.ElicitationSep1330EnumsResponse, error) {
	st := formRound(req.GetInput(), "Elicitation completed", request(methodElicit, map[string]any{
		"mode":    "form",
		"message": "Please select options from the enum fields",
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": enumFields(),
			"required":   []any{},
		},
	}))
	return &conformancev1.ElicitationSep1330EnumsResponse{Output: st.out, InputRequired: st.need}, nil
}

// enumFields are the five enum shapes of SEP-1330: untitled and titled
// single select, the legacy enumNames, untitled and titled multi select.
func enumFields() map[string]any {
	titled := func(prefix string, titles ...string) []any {
		var out []any
		for i, t := range titles {
			out = append(out, map[string]any{"const": prefix + string(rune('1'+i)), "title": t})
		}
		return out
	}
	return map[string]any{
		"untitledSingle": map[string]any{
			"type": "string", "description": "Select one option",
			"enum": []any{"option1", "option2", "option3"},
		},
		"titledSingle": map[string]any{
			"type": "string", "description": "Select one option with titles",
			"oneOf": titled("value", "First Option", "Second Option", "Third Option"),
		},
		"legacyEnum": map[string]any{
			"type": "string", "description": "Select one option (legacy)",
			"enum":      []any{"opt1", "opt2", "opt3"},
			"enumNames": []any{"Option One", "Option Two", "Option Three"},
		},
		"untitledMulti": map[string]any{
			"type": "array", "description": "Select multiple options",
			"items": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}},
		},
		"titledMulti": map[string]any{
			"type": "array", "description": "Select multiple options with titles",
			"items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")},
		},
	}
}

// formRound asks for form under the key "form" and, once answered,
// reports the user's action and content after label.
func formRound(in *mcpv1.ClientInput, label string, form *mcpv1.InputRequest) step {
	a, ok := answer(in, "form")
	if !ok {
		return ask(nil, map[string]*mcpv1.InputRequest{"form": form})
	}
	action, content := elicited(a)
	return done(label + ": action=" + action + ", content=" + compactJSON(content))
}

// MissingCapability asks for sampling whatever the client declared: the
// front door refuses the call (-32021) when the client did not declare
// it, which is what the fixture is for.
func (s *Service) MissingCapability(_ context.Context, req *conformancev1.MissingCapabilityRequest) (*conformancev1.MissingCapabilityResponse, error) {
	st := ask(nil, map[string]*mcpv1.InputRequest{"needs_sampling": sample("Requires the sampling capability", 10)})
	if a, ok := answer(req.GetInput(), "needs_sampling"); ok {
		st = done("The client declared sampling and answered: " + sampledText(a))
	}
	return &conformancev1.MissingCapabilityResponse{Output: st.out, InputRequired: st.need}, nil
}

// StreamingElicitation asks the user for their name; on a streamed
// response the question must travel inside the result, never as a
// request of its own.
func (s *Service) StreamingElicitation(_ context.Context, req *conformancev1.StreamingElicitationRequest) (*conformancev1.StreamingElicitationResponse, error) {
	st := ask(nil, map[string]*mcpv1.InputRequest{"user_name": askString("What is your name?", "name")})
	if name, ok := acceptedString(req.GetInput(), "user_name", "name"); ok {
		st = done("Streaming elicitation completed (name: " + name + ").")
	} else if a, ok := answer(req.GetInput(), "user_name"); ok {
		action, _ := elicited(a)
		st = done("Streaming elicitation completed without a name (action: " + action + ").")
	}
	return &conformancev1.StreamingElicitationResponse{Output: st.out, InputRequired: st.need}, nil
}

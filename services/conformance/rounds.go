package conformance

import (
	"context"
	"strings"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// The input_required_result fixtures (SEP-2322) finish when the retry
// brings the answers they asked for and ask again for whatever is still
// missing, so a client that sent the wrong keys is asked again rather
// than failed. Answers under keys they did not ask for are ignored.

// InputRequiredResultElicitation asks for the user's name and greets them.
func (s *Service) InputRequiredResultElicitation(_ context.Context, req *conformancev1.InputRequiredResultElicitationRequest) (*conformancev1.InputRequiredResultElicitationResponse, error) {
	st := greet(req.GetInput())
	return &conformancev1.InputRequiredResultElicitationResponse{Output: st.out, InputRequired: st.need}, nil
}

// askName is the question of the fixtures that want a name.
func askName() *mcpv1.InputRequest { return askString("What is your name?", "name") }

// greet greets the user by the name they gave under "user_name", asking
// for it until they give it or refuse.
func greet(in *mcpv1.ClientInput) step {
	if name, ok := acceptedString(in, "user_name", "name"); ok {
		return done("Hello, " + name + "!")
	}
	if action, ok := refused(in, "user_name"); ok {
		return done("No name was given: the user chose to " + action + ".")
	}
	return ask(nil, map[string]*mcpv1.InputRequest{"user_name": askName()})
}

// InputRequiredResultSampling asks the client's model for the capital of
// France and returns its answer.
func (s *Service) InputRequiredResultSampling(_ context.Context, req *conformancev1.InputRequiredResultSamplingRequest) (*conformancev1.InputRequiredResultSamplingResponse, error) {
	st := ask(nil, map[string]*mcpv1.InputRequest{"capital_question": askCapital()})
	if a, ok := answer(req.GetInput(), "capital_question"); ok {
		st = done("The model answered: " + sampledText(a))
	}
	return &conformancev1.InputRequiredResultSamplingResponse{Output: st.out, InputRequired: st.need}, nil
}

// askCapital is the question of the fixtures that sample.
func askCapital() *mcpv1.InputRequest { return sample("What is the capital of France?", 50) }

// InputRequiredResultListRoots asks for the client's roots and lists
// their URIs.
func (s *Service) InputRequiredResultListRoots(_ context.Context, req *conformancev1.InputRequiredResultListRootsRequest) (*conformancev1.InputRequiredResultListRootsResponse, error) {
	st := ask(nil, map[string]*mcpv1.InputRequest{"client_roots": listRoots()})
	if a, ok := answer(req.GetInput(), "client_roots"); ok {
		st = done("The client's roots: " + rootURIs(a))
	}
	return &conformancev1.InputRequiredResultListRootsResponse{Output: st.out, InputRequired: st.need}, nil
}

// InputRequiredResultCapabilities asks only for what the client declared
// in this request's capabilities.
func (s *Service) InputRequiredResultCapabilities(_ context.Context, req *conformancev1.InputRequiredResultCapabilitiesRequest) (*conformancev1.InputRequiredResultCapabilitiesResponse, error) {
	st := declaredRound(req.GetInput())
	return &conformancev1.InputRequiredResultCapabilitiesResponse{Output: st.out, InputRequired: st.need}, nil
}

// byCapability is the request asked of a client declaring each
// capability, under its key.
var byCapability = []struct {
	capability, key string
	request         func() *mcpv1.InputRequest
}{
	{"elicitation", "user_name", askName},
	{"sampling", "capital_question", askCapital},
	{"roots", "client_roots", listRoots},
}

// declaredRound asks for what the client declared and has not answered
// yet, and finishes once nothing is left to ask.
func declaredRound(in *mcpv1.ClientInput) step {
	declared := in.GetCapabilities().GetFields()
	missing := map[string]*mcpv1.InputRequest{}
	var answered []string
	for _, c := range byCapability {
		if _, ok := declared[c.capability]; !ok {
			continue
		}
		if _, ok := answer(in, c.key); ok {
			answered = append(answered, c.key)
		} else {
			missing[c.key] = c.request()
		}
	}
	switch {
	case len(missing) > 0:
		return ask(nil, missing)
	case len(answered) == 0:
		return done("The client declared none of elicitation, sampling and roots, so nothing could be asked.")
	}
	return done("Answers received for what the client declared: " + strings.Join(answered, ", ") + ".")
}

// ConfirmDelete asks whether to delete req.filename, then says what the
// client decided; nothing is deleted.
func (s *Service) ConfirmDelete(_ context.Context, req *conformancev1.ConfirmDeleteRequest) (*conformancev1.ConfirmDeleteResponse, error) {
	st := ask(nil, map[string]*mcpv1.InputRequest{"confirm": askConfirm("Delete " + req.GetFilename() + "?")})
	if a, ok := answer(req.GetInput(), "confirm"); ok {
		action, content := elicited(a)
		yes, _ := content["confirm"].(bool)
		st = done("Not deleted: " + req.GetFilename() + " (the client chose to " + action + ").")
		if action == "accept" && yes {
			st = done("Deleted " + req.GetFilename() + " (a fixture: nothing was deleted).")
		}
	}
	return &conformancev1.ConfirmDeleteResponse{Output: st.out, InputRequired: st.need}, nil
}

// askConfirm is a yes-or-no question.
func askConfirm(message string) *mcpv1.InputRequest {
	return request(methodElicit, map[string]any{
		"message": message,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}},
			"required":   []any{"confirm"},
		},
	})
}

// MultiInput asks for a name and a confirmation at once, and answers when
// both came.
func (s *Service) MultiInput(_ context.Context, req *conformancev1.MultiInputRequest) (*conformancev1.MultiInputResponse, error) {
	first, ok1 := answer(req.GetInput(), "first")
	second, ok2 := answer(req.GetInput(), "second")
	if !ok1 || !ok2 {
		st := ask(nil, map[string]*mcpv1.InputRequest{"first": askName(), "second": askConfirm("Go on?")})
		return &conformancev1.MultiInputResponse{InputRequired: st.need}, nil
	}
	a1, _ := elicited(first)
	a2, _ := elicited(second)
	return &conformancev1.MultiInputResponse{Output: textOutput("Answered: first " + a1 + ", second " + a2 + ".")}, nil
}

// ToolWithTask greets the user by the name it asks for.
func (s *Service) ToolWithTask(_ context.Context, req *conformancev1.ToolWithTaskRequest) (*conformancev1.ToolWithTaskResponse, error) {
	st := greet(req.GetInput())
	return &conformancev1.ToolWithTaskResponse{Output: st.out, InputRequired: st.need}, nil
}

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// The fixtures of this file carry state from one round to the next. The
// front door seals it and refuses a retry whose state was altered, so
// what comes back is what the fixture set; a retry without it starts
// over.

// The states of the one-round fixtures.
var (
	confirmState  = []byte(`{"step":1}`)
	tamperState   = []byte(`{"marker":"fixture-state"}`)
	multipleState = []byte(`{"asked":["client_roots","greeting","user_name"]}`)
)

// InputRequiredResultRequestState asks for a confirmation with state and
// says state-ok once the state comes back with the answer.
func (s *Service) InputRequiredResultRequestState(_ context.Context, req *conformancev1.InputRequiredResultRequestStateRequest) (*conformancev1.InputRequiredResultRequestStateResponse, error) {
	st := confirmRound(req.GetInput(), confirmState, "state-ok")
	return &conformancev1.InputRequiredResultRequestStateResponse{Output: st.out, InputRequired: st.need}, nil
}

// InputRequiredResultTamperedState is InputRequiredResultRequestState
// under its own name and state: the suite alters the state of its retry
// and expects the front door to refuse it.
func (s *Service) InputRequiredResultTamperedState(_ context.Context, req *conformancev1.InputRequiredResultTamperedStateRequest) (*conformancev1.InputRequiredResultTamperedStateResponse, error) {
	st := confirmRound(req.GetInput(), tamperState, "state-ok (verified unaltered)")
	return &conformancev1.InputRequiredResultTamperedStateResponse{Output: st.out, InputRequired: st.need}, nil
}

// confirmRound asks for a confirmation under "confirm" with state, and
// finishes with label once the retry brings both the answer and state.
func confirmRound(in *mcpv1.ClientInput, state []byte, label string) step {
	a, ok := answer(in, "confirm")
	if !ok || !bytes.Equal(in.GetState(), state) {
		return ask(state, map[string]*mcpv1.InputRequest{"confirm": request(methodElicit, map[string]any{
			"message": "Please confirm",
			"requestedSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
				"required":   []any{"ok"},
			},
		})})
	}
	action, content := elicited(a)
	return done(label + ": action=" + action + ", content=" + compactJSON(content))
}

// InputRequiredResultMultipleInputs asks for a name, a greeting and the
// client's roots at once and asks again for any the retry lacks.
func (s *Service) InputRequiredResultMultipleInputs(_ context.Context, req *conformancev1.InputRequiredResultMultipleInputsRequest) (*conformancev1.InputRequiredResultMultipleInputsResponse, error) {
	st := multipleRound(req.GetInput())
	return &conformancev1.InputRequiredResultMultipleInputsResponse{Output: st.out, InputRequired: st.need}, nil
}

// multipleRound asks for whichever of the three inputs the client has
// not answered yet, and sums them up once it has all.
func multipleRound(in *mcpv1.ClientInput) step {
	wanted := map[string]func() *mcpv1.InputRequest{
		"user_name":    askName,
		"greeting":     func() *mcpv1.InputRequest { return sample("Generate a greeting", 50) },
		"client_roots": listRoots,
	}
	missing := map[string]*mcpv1.InputRequest{}
	for key, r := range wanted {
		if _, ok := answer(in, key); !ok {
			missing[key] = r()
		}
	}
	if len(missing) > 0 {
		return ask(multipleState, missing)
	}
	name, ok := acceptedString(in, "user_name", "name")
	if !ok {
		name = "(no name given)"
	}
	greeting, _ := answer(in, "greeting")
	roots, _ := answer(in, "client_roots")
	return done(fmt.Sprintf("All inputs received: name %s; greeting %q; roots %s.",
		name, sampledText(greeting), rootURIs(roots)))
}

// InputRequiredResultMultiRound asks for a name, then for a colour, each
// round with new state, then returns both.
func (s *Service) InputRequiredResultMultiRound(_ context.Context, req *conformancev1.InputRequiredResultMultiRoundRequest) (*conformancev1.InputRequiredResultMultiRoundResponse, error) {
	st := multiRound(req.GetInput())
	return &conformancev1.InputRequiredResultMultiRoundResponse{Output: st.out, InputRequired: st.need}, nil
}

// roundState is the state of InputRequiredResultMultiRound: the round
// whose question is out, and the name once known.
type roundState struct {
	Round int    `json:"round"`
	Name  string `json:"name,omitempty"`
}

func (r roundState) encode() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("conformance: " + err.Error()) // two plain fields always marshal
	}
	return b
}

// multiRound moves the flow on from the round its state names: a retry
// without the answer of that round is asked the same again, one without
// state starts over.
func multiRound(in *mcpv1.ClientInput) step {
	var prev roundState
	if json.Unmarshal(in.GetState(), &prev) != nil {
		prev = roundState{} // no state: start over
	}
	if prev.Round == 2 {
		if color, ok := acceptedString(in, "step2", "color"); ok {
			return done(fmt.Sprintf("Hello %s, your favorite color is %s", prev.Name, color))
		}
		if action, ok := refused(in, "step2"); ok {
			return done(fmt.Sprintf("Hello %s; no favorite color was given: the user chose to %s.", prev.Name, action))
		}
		return askColor(prev)
	}
	if prev.Round == 1 {
		if name, ok := acceptedString(in, "step1", "name"); ok {
			return askColor(roundState{Round: 2, Name: name})
		}
		if action, ok := refused(in, "step1"); ok {
			return done("No name was given: the user chose to " + action + ".")
		}
	}
	return ask(roundState{Round: 1}.encode(), map[string]*mcpv1.InputRequest{"step1": askString("Step 1: What is your name?", "name")})
}

// askColor is the second round's question, with its state.
func askColor(st roundState) step {
	return ask(st.encode(), map[string]*mcpv1.InputRequest{"step2": askString("Step 2: What is your favorite color?", "color")})
}

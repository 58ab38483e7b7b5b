package conformance_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/services/conformance"
)

// round is what a tool that may ask returns.
type round interface {
	GetOutput() *mcpv1.ToolOutput
	GetInputRequired() *mcpv1.InputRequired
}

// toolCall calls one tool with the ClientInput of a call.
type toolCall func(context.Context, *mcpv1.ClientInput) (round, error)

func call[Req any, Resp round](f func(context.Context, Req) (Resp, error), req func(*mcpv1.ClientInput) Req) toolCall {
	return func(ctx context.Context, in *mcpv1.ClientInput) (round, error) {
		return f(ctx, req(in))
	}
}

// tools are the fixtures that ask, by tool name.
func tools(svc *conformance.Service) map[string]toolCall {
	return map[string]toolCall{
		"test_sampling": call(svc.Sampling, func(in *mcpv1.ClientInput) *conformancev1.SamplingRequest {
			return &conformancev1.SamplingRequest{Prompt: "Say hi", Input: in}
		}),
		"test_elicitation": call(svc.Elicitation, func(in *mcpv1.ClientInput) *conformancev1.ElicitationRequest {
			return &conformancev1.ElicitationRequest{Message: "Who are you?", Input: in}
		}),
		"test_elicitation_sep1034_defaults": call(svc.ElicitationSep1034Defaults, func(in *mcpv1.ClientInput) *conformancev1.ElicitationSep1034DefaultsRequest {
			return &conformancev1.ElicitationSep1034DefaultsRequest{Input: in}
		}),
		"test_elicitation_sep1330_enums": call(svc.ElicitationSep1330Enums, func(in *mcpv1.ClientInput) *conformancev1.ElicitationSep1330EnumsRequest {
			return &conformancev1.ElicitationSep1330EnumsRequest{Input: in}
		}),
		"test_missing_capability": call(svc.MissingCapability, func(in *mcpv1.ClientInput) *conformancev1.MissingCapabilityRequest {
			return &conformancev1.MissingCapabilityRequest{Input: in}
		}),
		"test_streaming_elicitation": call(svc.StreamingElicitation, func(in *mcpv1.ClientInput) *conformancev1.StreamingElicitationRequest {
			return &conformancev1.StreamingElicitationRequest{Input: in}
		}),
		"test_input_required_result_elicitation": call(svc.InputRequiredResultElicitation, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultElicitationRequest {
			return &conformancev1.InputRequiredResultElicitationRequest{Input: in}
		}),
		"test_input_required_result_sampling": call(svc.InputRequiredResultSampling, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultSamplingRequest {
			return &conformancev1.InputRequiredResultSamplingRequest{Input: in}
		}),
		"test_input_required_result_list_roots": call(svc.InputRequiredResultListRoots, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultListRootsRequest {
			return &conformancev1.InputRequiredResultListRootsRequest{Input: in}
		}),
		"test_input_required_result_request_state": call(svc.InputRequiredResultRequestState, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultRequestStateRequest {
			return &conformancev1.InputRequiredResultRequestStateRequest{Input: in}
		}),
		"test_input_required_result_tampered_state": call(svc.InputRequiredResultTamperedState, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultTamperedStateRequest {
			return &conformancev1.InputRequiredResultTamperedStateRequest{Input: in}
		}),
		"test_input_required_result_multiple_inputs": call(svc.InputRequiredResultMultipleInputs, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultMultipleInputsRequest {
			return &conformancev1.InputRequiredResultMultipleInputsRequest{Input: in}
		}),
		"test_input_required_result_multi_round": call(svc.InputRequiredResultMultiRound, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultMultiRoundRequest {
			return &conformancev1.InputRequiredResultMultiRoundRequest{Input: in}
		}),
		"test_input_required_result_capabilities": call(svc.InputRequiredResultCapabilities, func(in *mcpv1.ClientInput) *conformancev1.InputRequiredResultCapabilitiesRequest {
			return &conformancev1.InputRequiredResultCapabilitiesRequest{Input: in}
		}),
	}
}

// asked renders an InputRequired as key → method.
func asked(ir *mcpv1.InputRequired) map[string]string {
	if ir == nil {
		return nil
	}
	out := map[string]string{}
	for k, r := range ir.GetRequests() {
		out[k] = r.GetMethod()
	}
	return out
}

const (
	elicit = "elicitation/create"
	sample = "sampling/createMessage"
	list   = "roots/list"
)

// TestRounds calls each asking tool with what a client sends in one round
// and checks that it asks for exactly what it should (with the state it
// should carry) or finishes with the text it should.
func TestRounds(t *testing.T) {
	svc, _ := newService(t)
	byName := tools(svc)
	for _, tc := range []struct {
		name, tool string
		in         *mcpv1.ClientInput
		wantAsk    map[string]string // key → method; nil when the tool finishes
		wantState  string
		wantText   string
	}{
		{name: "sampling asks", tool: "test_sampling", wantAsk: map[string]string{"llm": sample}},
		{name: "sampling answered", tool: "test_sampling",
			in:       answers(t, "", map[string]map[string]any{"llm": sampled("Hi there")}),
			wantText: "LLM response: Hi there"},
		{name: "sampling without content", tool: "test_sampling",
			in:       answers(t, "", map[string]map[string]any{"llm": {"role": "assistant"}}),
			wantText: "LLM response: No response"},
		{name: "sampling retried without the answer", tool: "test_sampling",
			in:      answers(t, "", map[string]map[string]any{"other": sampled("x")}),
			wantAsk: map[string]string{"llm": sample}},

		{name: "elicitation asks", tool: "test_elicitation", wantAsk: map[string]string{"form": elicit}},
		{name: "elicitation accepted", tool: "test_elicitation",
			in:       answers(t, "", map[string]map[string]any{"form": accept(map[string]any{"username": "alice", "email": "a@example.com"})}),
			wantText: `User response: action=accept, content={"email":"a@example.com","username":"alice"}`},
		{name: "elicitation declined", tool: "test_elicitation",
			in:       answers(t, "", map[string]map[string]any{"form": {"action": "decline"}}),
			wantText: "User response: action=decline, content={}"},
		{name: "defaults asks", tool: "test_elicitation_sep1034_defaults", wantAsk: map[string]string{"form": elicit}},
		{name: "defaults accepted", tool: "test_elicitation_sep1034_defaults",
			in:       answers(t, "", map[string]map[string]any{"form": accept(map[string]any{"name": "John Doe", "age": 30, "verified": true})}),
			wantText: `Elicitation completed: action=accept, content={"age":30,"name":"John Doe","verified":true}`},
		{name: "enums asks", tool: "test_elicitation_sep1330_enums", wantAsk: map[string]string{"form": elicit}},
		{name: "enums accepted", tool: "test_elicitation_sep1330_enums",
			in:       answers(t, "", map[string]map[string]any{"form": accept(map[string]any{"untitledMulti": []any{"option1", "option3"}})}),
			wantText: `Elicitation completed: action=accept, content={"untitledMulti":["option1","option3"]}`},

		{name: "missing capability always asks for sampling", tool: "test_missing_capability",
			in: declaring(t), wantAsk: map[string]string{"needs_sampling": sample}},
		{name: "missing capability answered", tool: "test_missing_capability",
			in:       answers(t, "", map[string]map[string]any{"needs_sampling": sampled("ok")}),
			wantText: "The client declared sampling and answered: ok"},
		{name: "streaming elicitation asks", tool: "test_streaming_elicitation", wantAsk: map[string]string{"user_name": elicit}},
		{name: "streaming elicitation answered", tool: "test_streaming_elicitation",
			in:       answers(t, "", map[string]map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}),
			wantText: "Streaming elicitation completed (name: Alice)."},

		{name: "elicitation round 1", tool: "test_input_required_result_elicitation", wantAsk: map[string]string{"user_name": elicit}},
		{name: "elicitation round 2", tool: "test_input_required_result_elicitation",
			in:       answers(t, "", map[string]map[string]any{"user_name": accept(map[string]any{"name": "Alice"})}),
			wantText: "Hello, Alice!"},
		{name: "elicitation ignores extra keys", tool: "test_input_required_result_elicitation",
			in: answers(t, "", map[string]map[string]any{
				"user_name":          accept(map[string]any{"name": "Alice"}),
				"unknown_extra_key":  accept(map[string]any{"foo": "bar"}),
				"another_unexpected": accept(map[string]any{"baz": 123}),
			}),
			wantText: "Hello, Alice!"},
		{name: "elicitation wrong key asks again", tool: "test_input_required_result_elicitation",
			in:      answers(t, "", map[string]map[string]any{"wrong_key": accept(map[string]any{"data": "wrong"})}),
			wantAsk: map[string]string{"user_name": elicit}},
		{name: "elicitation without a name asks again", tool: "test_input_required_result_elicitation",
			in:      answers(t, "", map[string]map[string]any{"user_name": accept(map[string]any{"name": 12345})}),
			wantAsk: map[string]string{"user_name": elicit}},
		{name: "elicitation declined finishes", tool: "test_input_required_result_elicitation",
			in:       answers(t, "", map[string]map[string]any{"user_name": {"action": "decline"}}),
			wantText: "No name was given: the user chose to decline."},

		{name: "sampling round 1", tool: "test_input_required_result_sampling", wantAsk: map[string]string{"capital_question": sample}},
		{name: "sampling round 2", tool: "test_input_required_result_sampling",
			in:       answers(t, "", map[string]map[string]any{"capital_question": sampled("The capital of France is Paris.")}),
			wantText: "The model answered: The capital of France is Paris."},
		{name: "roots round 1", tool: "test_input_required_result_list_roots", wantAsk: map[string]string{"client_roots": list}},
		{name: "roots round 2", tool: "test_input_required_result_list_roots",
			in:       answers(t, "", map[string]map[string]any{"client_roots": roots("file:///home/user/project", "file:///tmp")}),
			wantText: "The client's roots: file:///home/user/project, file:///tmp"},
		{name: "roots round 2, none", tool: "test_input_required_result_list_roots",
			in:       answers(t, "", map[string]map[string]any{"client_roots": roots()}),
			wantText: "The client's roots: none"},

		{name: "request state round 1", tool: "test_input_required_result_request_state",
			wantAsk: map[string]string{"confirm": elicit}, wantState: `{"step":1}`},
		{name: "request state round 2", tool: "test_input_required_result_request_state",
			in:       answers(t, `{"step":1}`, map[string]map[string]any{"confirm": accept(map[string]any{"ok": true})}),
			wantText: `state-ok: action=accept, content={"ok":true}`},
		{name: "request state without state asks again", tool: "test_input_required_result_request_state",
			in:      answers(t, "", map[string]map[string]any{"confirm": accept(map[string]any{"ok": true})}),
			wantAsk: map[string]string{"confirm": elicit}, wantState: `{"step":1}`},
		{name: "request state with state only asks again", tool: "test_input_required_result_request_state",
			in:      answers(t, `{"step":1}`, nil),
			wantAsk: map[string]string{"confirm": elicit}, wantState: `{"step":1}`},
		{name: "tampered state round 1", tool: "test_input_required_result_tampered_state",
			wantAsk: map[string]string{"confirm": elicit}, wantState: `{"marker":"fixture-state"}`},
		{name: "tampered state round 2", tool: "test_input_required_result_tampered_state",
			in:       answers(t, `{"marker":"fixture-state"}`, map[string]map[string]any{"confirm": accept(map[string]any{"ok": true})}),
			wantText: `state-ok (verified unaltered): action=accept, content={"ok":true}`},

		{name: "multiple inputs round 1", tool: "test_input_required_result_multiple_inputs",
			wantAsk:   map[string]string{"user_name": elicit, "greeting": sample, "client_roots": list},
			wantState: `{"asked":["client_roots","greeting","user_name"]}`},
		{name: "multiple inputs asks for what is missing", tool: "test_input_required_result_multiple_inputs",
			in:        answers(t, `{"asked":["client_roots","greeting","user_name"]}`, map[string]map[string]any{"greeting": sampled("Hello there!")}),
			wantAsk:   map[string]string{"user_name": elicit, "client_roots": list},
			wantState: `{"asked":["client_roots","greeting","user_name"]}`},
		{name: "multiple inputs round 2", tool: "test_input_required_result_multiple_inputs",
			in: answers(t, `{"asked":["client_roots","greeting","user_name"]}`, map[string]map[string]any{
				"user_name":    accept(map[string]any{"name": "Alice"}),
				"greeting":     sampled("Hello there!"),
				"client_roots": roots("file:///project"),
			}),
			wantText: `All inputs received: name Alice; greeting "Hello there!"; roots file:///project.`},

		{name: "capabilities: sampling only", tool: "test_input_required_result_capabilities",
			in: declaring(t, "sampling"), wantAsk: map[string]string{"capital_question": sample}},
		{name: "capabilities: elicitation and roots", tool: "test_input_required_result_capabilities",
			in: declaring(t, "elicitation", "roots"), wantAsk: map[string]string{"user_name": elicit, "client_roots": list}},
		{name: "capabilities: all three", tool: "test_input_required_result_capabilities",
			in:      declaring(t, "elicitation", "sampling", "roots", "experimental"),
			wantAsk: map[string]string{"user_name": elicit, "capital_question": sample, "client_roots": list}},
		{name: "capabilities: none", tool: "test_input_required_result_capabilities",
			in:       declaring(t),
			wantText: "The client declared none of elicitation, sampling and roots, so nothing could be asked."},
		{name: "capabilities: no ClientInput at all", tool: "test_input_required_result_capabilities",
			wantText: "The client declared none of elicitation, sampling and roots, so nothing could be asked."},
		{name: "capabilities: answered", tool: "test_input_required_result_capabilities",
			in: func() *mcpv1.ClientInput {
				in := answers(t, "", map[string]map[string]any{"capital_question": sampled("Paris")})
				in.Capabilities = declaring(t, "sampling").Capabilities
				return in
			}(),
			wantText: "Answers received for what the client declared: capital_question."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := byName[tc.tool](asReader(), tc.in)
			if err != nil {
				t.Fatalf("%s: %v", tc.tool, err)
			}
			if tc.wantAsk != nil {
				if r.GetOutput() != nil {
					t.Errorf("%s output = %v, want none while asking", tc.tool, r.GetOutput())
				}
				if diff := cmp.Diff(tc.wantAsk, asked(r.GetInputRequired())); diff != "" {
					t.Errorf("%s asked (-want +got):\n%s", tc.tool, diff)
				}
				if got := string(r.GetInputRequired().GetState()); got != tc.wantState {
					t.Errorf("%s state = %q, want %q", tc.tool, got, tc.wantState)
				}
				return
			}
			if r.GetInputRequired() != nil {
				t.Fatalf("%s asked %v, want it to finish", tc.tool, asked(r.GetInputRequired()))
			}
			if got := onlyText(t, r.GetOutput()); got != tc.wantText {
				t.Errorf("%s text = %q, want %q", tc.tool, got, tc.wantText)
			}
			if r.GetOutput().GetIsError() {
				t.Errorf("%s is a tool error, want a result", tc.tool)
			}
		})
	}
}

// TestMultiRound plays the three rounds of the multi-round fixture, each
// retry bringing back the state of the round before.
func TestMultiRound(t *testing.T) {
	svc, _ := newService(t)
	multi := tools(svc)["test_input_required_result_multi_round"]
	step := func(in *mcpv1.ClientInput) round {
		t.Helper()
		r, err := multi(asReader(), in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	checkAsk := func(r round, key, message, state string) {
		t.Helper()
		ir := r.GetInputRequired()
		if got := slices.Collect(maps.Keys(ir.GetRequests())); !slices.Equal(got, []string{key}) {
			t.Fatalf("asked %v, want only %s", got, key)
		}
		if got := ir.GetRequests()[key].GetParams().AsMap()["message"]; got != message {
			t.Errorf("%s message = %q, want %q", key, got, message)
		}
		if got := string(ir.GetState()); got != state {
			t.Errorf("state = %s, want %s", got, state)
		}
	}

	r1 := step(nil)
	checkAsk(r1, "step1", "Step 1: What is your name?", `{"round":1}`)
	r2 := step(answers(t, string(r1.GetInputRequired().GetState()), map[string]map[string]any{"step1": accept(map[string]any{"name": "Alice"})}))
	checkAsk(r2, "step2", "Step 2: What is your favorite color?", `{"round":2,"name":"Alice"}`)
	r3 := step(answers(t, string(r2.GetInputRequired().GetState()), map[string]map[string]any{"step2": accept(map[string]any{"color": "blue"})}))
	if r3.GetInputRequired() != nil {
		t.Fatalf("round 3 asked %v, want it to finish", asked(r3.GetInputRequired()))
	}
	if got, want := onlyText(t, r3.GetOutput()), "Hello Alice, your favorite color is blue"; got != want {
		t.Errorf("round 3 text = %q, want %q", got, want)
	}

	// A retry that lacks the answer of its round is asked the same again;
	// one without state starts over.
	checkAsk(step(answers(t, `{"round":1}`, nil)), "step1", "Step 1: What is your name?", `{"round":1}`)
	checkAsk(step(answers(t, `{"round":2,"name":"Alice"}`, nil)), "step2", "Step 2: What is your favorite color?", `{"round":2,"name":"Alice"}`)
	checkAsk(step(answers(t, "", map[string]map[string]any{"step2": accept(map[string]any{"color": "blue"})})),
		"step1", "Step 1: What is your name?", `{"round":1}`)
	// Declining ends the flow rather than asking forever.
	r := step(answers(t, `{"round":2,"name":"Alice"}`, map[string]map[string]any{"step2": {"action": "cancel"}}))
	if got, want := onlyText(t, r.GetOutput()), "Hello Alice; no favorite color was given: the user chose to cancel."; got != want {
		t.Errorf("cancelled round 2 text = %q, want %q", got, want)
	}
}

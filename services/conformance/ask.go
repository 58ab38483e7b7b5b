package conformance

import (
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
)

// The requests a tool may put in an InputRequired.
const (
	methodElicit = "elicitation/create"
	methodSample = "sampling/createMessage"
	methodRoots  = "roots/list"
)

// step is where a tool that asks for input stands after one call: done
// with out, or waiting for the client's answers to need.
type step struct {
	out  *mcpv1.ToolOutput
	need *mcpv1.InputRequired
}

// done is a finished step with one text block.
func done(s string) step { return step{out: textOutput(s)} }

// ask is a step waiting for requests, carrying state (nil for none) to
// the next round.
func ask(state []byte, requests map[string]*mcpv1.InputRequest) step {
	return step{need: &mcpv1.InputRequired{Requests: requests, State: state}}
}

// request is an InputRequest of method with params. The params are
// fixtures built from maps, slices, strings, numbers and bools, which
// structpb always takes: a failure is a bug in this package.
func request(method string, params map[string]any) *mcpv1.InputRequest {
	st, err := structpb.NewStruct(params)
	if err != nil {
		panic("conformance: bad fixture params: " + err.Error())
	}
	return &mcpv1.InputRequest{Method: method, Params: st}
}

// askString asks the user for one required string field.
func askString(message, field string) *mcpv1.InputRequest {
	return request(methodElicit, map[string]any{
		"message": message,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{field: map[string]any{"type": "string"}},
			"required":   []any{field},
		},
	})
}

// sample asks the client's model to answer prompt.
func sample(prompt string, maxTokens int) *mcpv1.InputRequest {
	return request(methodSample, map[string]any{
		"messages": []any{map[string]any{
			"role":    "user",
			"content": map[string]any{"type": "text", "text": prompt},
		}},
		"maxTokens": maxTokens,
	})
}

// listRoots asks for the client's roots.
func listRoots() *mcpv1.InputRequest { return request(methodRoots, map[string]any{}) }

// answer returns the client's answer under key, if it gave one.
func answer(in *mcpv1.ClientInput, key string) (map[string]any, bool) {
	st, ok := in.GetResponses()[key]
	if !ok || st == nil {
		return nil, false
	}
	return st.AsMap(), true
}

// elicited splits an elicitation answer into the action the user took
// (accept, decline or cancel) and the form's content, empty unless they
// accepted.
func elicited(a map[string]any) (action string, content map[string]any) {
	action, _ = a["action"].(string)
	content, _ = a["content"].(map[string]any)
	if content == nil {
		content = map[string]any{}
	}
	return action, content
}

// acceptedString returns field of the form the user accepted under key;
// ok is false when there is no such answer, the user did not accept, or
// the field is not a string.
func acceptedString(in *mcpv1.ClientInput, key, field string) (value string, ok bool) {
	a, found := answer(in, key)
	if !found {
		return "", false
	}
	action, content := elicited(a)
	value, ok = content[field].(string)
	return value, ok && action == "accept"
}

// sampledText returns the text of a sampling answer: its content block,
// or the first text block of a list of them.
func sampledText(a map[string]any) string {
	switch c := a["content"].(type) {
	case map[string]any:
		if t, ok := c["text"].(string); ok {
			return t
		}
	case []any:
		for _, b := range c {
			if m, ok := b.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					return t
				}
			}
		}
	}
	return "No response"
}

// rootURIs returns the URIs of a roots/list answer, joined for a
// sentence.
func rootURIs(a map[string]any) string {
	roots, _ := a["roots"].([]any)
	var uris []string
	for _, r := range roots {
		if m, ok := r.(map[string]any); ok {
			if u, ok := m["uri"].(string); ok {
				uris = append(uris, u)
			}
		}
	}
	if len(uris) == 0 {
		return "none"
	}
	return strings.Join(uris, ", ")
}

// refused returns the action of an answer under key in which the user
// declined or cancelled: asking again would only annoy them.
func refused(in *mcpv1.ClientInput, key string) (action string, ok bool) {
	a, found := answer(in, key)
	if !found {
		return "", false
	}
	action, _ = elicited(a)
	return action, action == "decline" || action == "cancel"
}

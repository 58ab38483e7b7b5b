package mrtr

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
)

// Input builds the ClientInput of a request: the capabilities it declared,
// always, so a worker can choose what to ask for; and on a retry, the
// answers and the state of the previous round. A requestState must open,
// match b and not have expired, else the error is -32602: the client
// altered it, waited too long, or sent it with another call.
// inputResponses must be a JSON object of objects (each the result of one
// input request); its presence alone makes the call a retry.
func (r *Rounds) Input(b Binding, capabilities, inputResponses json.RawMessage, requestState string) (*mcpv1.ClientInput, error) {
	caps, err := structOf(capabilities)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: the client capabilities must be a JSON object")
	}
	in := &mcpv1.ClientInput{Capabilities: caps}
	if requestState != "" {
		if in.State, err = r.open(b, requestState); err != nil {
			return nil, err
		}
		in.Retry = true
	}
	if !absent(inputResponses) {
		if in.Responses, err = responses(inputResponses); err != nil {
			return nil, err
		}
		in.Retry = true
	}
	return in, nil
}

// absent reports JSON that is not there: empty or null.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// structOf reads a JSON object, absent meaning empty.
func structOf(raw json.RawMessage) (*structpb.Struct, error) {
	m := map[string]any{}
	if !absent(raw) {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	return structpb.NewStruct(m)
}

// responses reads inputResponses: an object whose every value is an
// object.
func responses(raw json.RawMessage) (map[string]*structpb.Struct, error) {
	bad := jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: inputResponses must be an object whose every value is the result object of one input request")
	var all map[string]json.RawMessage
	if json.Unmarshal(raw, &all) != nil || all == nil {
		return nil, bad
	}
	out := make(map[string]*structpb.Struct, len(all))
	for key, v := range all {
		s, err := structOf(v)
		if err != nil || absent(v) {
			return nil, bad
		}
		out[key] = s
	}
	return out, nil
}

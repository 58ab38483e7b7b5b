package mrtr

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// Input request methods, and the client capability each needs.
const (
	methodElicit  = "elicitation/create"
	methodSample  = "sampling/createMessage"
	methodRoots   = "roots/list"
	capElicit     = "elicitation"
	capSample     = "sampling"
	capRoots      = "roots"
	elicitFormKey = "form"
	elicitURLKey  = "url"
)

// Required turns a worker's InputRequired into the result for the client,
// sealing ir.State with the binding into requestState. A server may ask
// only for what the request declared it can answer, so each request's
// method must be covered by capabilities (the request's
// ClientCapabilities); if not, the error is -32021 naming what is missing,
// with the missing capabilities as data. A method MCP does not define is
// the worker's bug, an internal error.
func (r *Rounds) Required(b Binding, ir *mcpv1.InputRequired, capabilities json.RawMessage) (*mcp.InputRequiredResult, error) {
	declared := readCapabilities(capabilities)
	requests := make(map[string]mcp.InputRequest, len(ir.GetRequests()))
	missing := map[string]any{}
	var methods []string
	for key, req := range ir.GetRequests() {
		need, err := needs(req)
		if err != nil {
			return nil, fmt.Errorf("mrtr: %s: input request %q: %w", b.Target, key, err)
		}
		if !declared.cover(need) {
			need.addTo(missing)
			methods = append(methods, req.GetMethod())
		}
		requests[key] = mcp.InputRequest{Method: req.GetMethod(), Params: params(req)}
	}
	if len(missing) > 0 {
		return nil, missingError(b.Target, missing, methods)
	}
	state, err := r.seal(b, ir.GetState())
	if err != nil {
		return nil, err
	}
	return &mcp.InputRequiredResult{InputRequests: requests, RequestState: state}, nil
}

// params is a request's params as JSON takes them: an object, never null,
// since every input request's params is an object when present.
func params(req *mcpv1.InputRequest) map[string]any {
	if req.GetParams() == nil {
		return map[string]any{}
	}
	return req.GetParams().AsMap()
}

// need is a client capability an input request needs: capability, and for
// elicitation the mode ("form" or "url") within it.
type need struct{ capability, mode string }

// addTo adds n to caps, a ClientCapabilities object, keeping the modes
// already there.
func (n need) addTo(caps map[string]any) {
	member, ok := caps[n.capability].(map[string]any)
	if !ok {
		member = map[string]any{}
		caps[n.capability] = member
	}
	if n.mode != "" {
		member[n.mode] = map[string]any{}
	}
}

// needs returns what req needs of the client. An elicitation is a form
// unless its params say mode "url".
func needs(req *mcpv1.InputRequest) (need, error) {
	switch req.GetMethod() {
	case methodElicit:
		if req.GetParams().GetFields()["mode"].GetStringValue() == elicitURLKey {
			return need{capElicit, elicitURLKey}, nil
		}
		return need{capElicit, elicitFormKey}, nil
	case methodSample:
		return need{capability: capSample}, nil
	case methodRoots:
		return need{capability: capRoots}, nil
	}
	return need{}, fmt.Errorf("method %q is not one a server may ask a client (%s, %s or %s)", req.GetMethod(), methodElicit, methodSample, methodRoots)
}

// capabilities are the members of a ClientCapabilities object.
type capabilities map[string]json.RawMessage

// readCapabilities reads a ClientCapabilities object; anything else
// declares nothing.
func readCapabilities(raw json.RawMessage) capabilities {
	var c capabilities
	if json.Unmarshal(raw, &c) != nil {
		return nil
	}
	return c
}

// cover reports whether c declares n. "elicitation": {} declares form
// mode only, as the revisions with modes read it.
func (c capabilities) cover(n need) bool {
	var sub map[string]json.RawMessage
	if json.Unmarshal(c[n.capability], &sub) != nil || sub == nil {
		return false
	}
	if n.mode == "" {
		return true
	}
	_, form := sub[elicitFormKey]
	_, url := sub[elicitURLKey]
	if n.mode == elicitURLKey {
		return url
	}
	return form || !url
}

// missingError is the -32021 of a round the request's capabilities do not
// cover.
func missingError(target string, missing map[string]any, methods []string) *jsonrpc.Error {
	names := make([]string, 0, len(missing))
	for name := range missing {
		names = append(names, name)
	}
	slices.Sort(names)
	slices.Sort(methods)
	return &jsonrpc.Error{
		Code: jsonrpc.MissingRequiredClientCapability,
		Message: fmt.Sprintf("%s needs input through %s, and this request did not declare the client capabilities for it: %s",
			target, strings.Join(slices.Compact(methods), ", "), strings.Join(names, ", ")),
		Data: map[string]any{"requiredCapabilities": missing},
	}
}

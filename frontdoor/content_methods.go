package frontdoor

import (
	"encoding/json"
	"errors"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// The methods of resources, prompts and completion. Each reads its params
// and calls its backend once (the *Body functions), which both eras share;
// a modern result adds resultType, _meta and the cache hint, a legacy one
// is the body alone, as 2025-06-18 and 2025-11-25 define it.

type resourcesBody struct {
	Resources []mcp.Resource `json:"resources"`
}

type templatesBody struct {
	ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
}

type contentsBody struct {
	Contents []mcp.ResourceContents `json:"contents"`
}

type promptsBody struct {
	Prompts []mcp.Prompt `json:"prompts"`
}

type completeBody struct {
	Completion *mcp.Completion `json:"completion"`
}

func (x *exchange) resourcesBody() (resourcesBody, error) {
	if x.h.cfg.Resources == nil {
		return resourcesBody{}, x.notServed()
	}
	if err := x.onePage(); err != nil {
		return resourcesBody{}, err
	}
	rs, err := x.h.cfg.Resources.Resources(x.r.Context(), x.caller)
	if err == nil && x.appsDeclared() {
		rs = append(rs, x.h.cfg.Apps.Views()...)
	}
	return resourcesBody{Resources: nonNil(rs)}, err
}

func (x *exchange) templatesBody() (templatesBody, error) {
	if x.h.cfg.Resources == nil {
		return templatesBody{}, x.notServed()
	}
	if err := x.onePage(); err != nil {
		return templatesBody{}, err
	}
	ts, err := x.h.cfg.Resources.ResourceTemplates(x.r.Context(), x.caller)
	return templatesBody{ResourceTemplates: nonNil(ts)}, err
}

func (x *exchange) contentsBody() (contentsBody, error) {
	if x.h.cfg.Resources == nil {
		return contentsBody{}, x.notServed()
	}
	uri, ok := str(x.req.params, "uri")
	if !ok {
		return contentsBody{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.uri must be a string naming a resource")
	}
	x.tool = uri
	contents, handled, err := x.readView(uri)
	if !handled {
		contents, err = x.h.cfg.Resources.ReadResource(x.r.Context(), x.caller, uri)
	}
	if err == nil && len(contents) == 0 {
		err = &mcp.ResourceNotFoundError{URI: uri} // never empty contents
	}
	return contentsBody{Contents: contents}, err
}

func (x *exchange) promptsBody() (promptsBody, error) {
	if x.h.cfg.Prompts == nil {
		return promptsBody{}, x.notServed()
	}
	if err := x.onePage(); err != nil {
		return promptsBody{}, err
	}
	ps, err := x.h.cfg.Prompts.Prompts(x.r.Context(), x.caller)
	return promptsBody{Prompts: nonNil(ps)}, err
}

// promptBody gets the prompt that params name, for a client declaring
// caps. Its result may ask for input instead (InputRequired), which each
// era answers its own way.
func (x *exchange) promptBody(caps json.RawMessage) (*mcp.PromptResult, error) {
	if x.h.cfg.Prompts == nil {
		return nil, x.notServed()
	}
	req, err := x.promptRequest(caps)
	if err != nil {
		return nil, err
	}
	res, err := x.h.cfg.Prompts.GetPrompt(x.r.Context(), x.caller, req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("frontdoor: prompt backend returned neither result nor error")
	}
	out := *res // the backend's value stays untouched
	out.Messages = nonNil(out.Messages)
	return &out, nil
}

// promptRequest reads the params of a prompts/get; inputResponses and
// requestState are read as tools/call reads them.
func (x *exchange) promptRequest(caps json.RawMessage) (*mcp.PromptRequest, error) {
	name, ok := str(x.req.params, "name")
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.name must be a string naming a prompt")
	}
	x.tool = name
	args, err := stringMap(x.req.params["arguments"], "params.arguments")
	if err != nil {
		return nil, err
	}
	req := &mcp.PromptRequest{Name: name, Arguments: args, ClientCapabilities: caps}
	req.InputResponses, req.RequestState, err = x.inputRound()
	return req, err
}

func (x *exchange) completeBody() (completeBody, error) {
	if x.h.cfg.Completions == nil {
		return completeBody{}, x.notServed()
	}
	req, err := completeRequest(x.req.params)
	if err != nil {
		return completeBody{}, err
	}
	c, err := x.h.cfg.Completions.Complete(x.r.Context(), x.caller, req)
	if err != nil {
		return completeBody{}, err
	}
	if len(c.Values) > mcp.MaxCompletionValues {
		c.Values, c.HasMore = c.Values[:mcp.MaxCompletionValues], true
	}
	c.Values = nonNil(c.Values)
	return completeBody{Completion: c}, nil
}

// onePage accepts the cursor of a list that always fits one page: none,
// or "" (the first page). Any other cursor was not made here.
func (x *exchange) onePage() error {
	cursor, err := optionalString(x.req.params, "cursor")
	if err == nil && cursor != "" {
		err = jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: the cursor is not valid; list again without one")
	}
	return err
}

// completeRequest reads the params of completion/complete.
func completeRequest(params map[string]json.RawMessage) (*mcp.CompleteRequest, error) {
	ref, _ := object(params["ref"])
	arg, _ := object(params["argument"])
	req := &mcp.CompleteRequest{}
	var ok1, ok2 bool
	req.RefType, ok1 = str(ref, "type")
	switch req.RefType {
	case mcp.RefPrompt:
		req.RefName, ok2 = str(ref, "name")
	case mcp.RefResource:
		req.RefName, ok2 = str(ref, "uri")
	}
	if !ok1 || !ok2 {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, `invalid params: params.ref must be {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}`)
	}
	req.Argument, ok1 = str(arg, "name")
	req.Value, ok2 = str(arg, "value")
	if !ok1 || !ok2 {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.argument must be an object with string name and value")
	}
	raw, present := params["context"]
	if !present {
		return req, nil
	}
	cx, ok := object(raw)
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: params.context must be an object")
	}
	var err error
	req.Context, err = stringMap(cx["arguments"], "params.context.arguments")
	return req, err
}

// stringMap reads an optional object of strings, such as the arguments of
// prompts/get.
func stringMap(raw json.RawMessage, what string) (map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	var m map[string]string
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: %s must be an object of strings", what)
	}
	return m, nil
}

// nonNil turns a nil list into an empty one: lists are required members.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

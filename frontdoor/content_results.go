package frontdoor

import (
	"encoding/json"
	"errors"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// The results of resources, prompts and completion in each era: 2026-07-28
// adds resultType, _meta and, on cacheable results, a private cache hint;
// 2025-06-18 and 2025-11-25 take the body alone.

func (x *exchange) listResources() (any, error) {
	b, err := x.resourcesBody()
	if err != nil {
		return nil, err
	}
	return struct {
		resultHead
		resourcesBody
		cacheHint
	}{x.head(), b, private(listResourcesTTLMs)}, nil
}

func (x *exchange) listResourceTemplates() (any, error) {
	b, err := x.templatesBody()
	if err != nil {
		return nil, err
	}
	return struct {
		resultHead
		templatesBody
		cacheHint
	}{x.head(), b, private(templatesTTLMs)}, nil
}

func (x *exchange) readResource() (any, error) {
	b, err := x.contentsBody()
	if err != nil {
		return nil, err
	}
	return struct {
		resultHead
		contentsBody
		cacheHint
	}{x.head(), b, private(readResourceTTLMs)}, nil
}

func (x *exchange) listPrompts() (any, error) {
	b, err := x.promptsBody()
	if err != nil {
		return nil, err
	}
	return struct {
		resultHead
		promptsBody
		cacheHint
	}{x.head(), b, private(listPromptsTTLMs)}, nil
}

// getPrompt answers a prompt that needs the client's input first as
// tools/call answers such a tool: input_required, the client retrying with
// inputResponses and requestState.
func (x *exchange) getPrompt() (any, error) {
	res, err := x.promptBody(x.req.meta[mcp.MetaClientCapabilities])
	if err != nil {
		return nil, err
	}
	if res.InputRequired != nil {
		return x.inputRequired(res.InputRequired), nil
	}
	return struct {
		resultHead
		*mcp.PromptResult
	}{x.head(), res}, nil
}

func (x *exchange) complete() (any, error) {
	b, err := x.completeBody()
	if err != nil {
		return nil, err
	}
	return struct {
		resultHead
		completeBody
	}{x.head(), b}, nil
}

func (x *exchange) legacyListResources() (any, error)         { return x.resourcesBody() }
func (x *exchange) legacyListResourceTemplates() (any, error) { return x.templatesBody() }
func (x *exchange) legacyReadResource() (any, error)          { return x.contentsBody() }
func (x *exchange) legacyListPrompts() (any, error)           { return x.promptsBody() }
func (x *exchange) legacyComplete() (any, error)              { return x.completeBody() }

// legacyGetPrompt gets a prompt for a legacy session, which declares no
// capabilities per request and has no input rounds: a prompt that needs
// the client's input is refused.
func (x *exchange) legacyGetPrompt() (any, error) {
	res, err := x.promptBody(json.RawMessage(`{}`))
	var je *jsonrpc.Error
	if err == nil && res.InputRequired != nil || errors.As(err, &je) && je.Code == jsonrpc.MissingRequiredClientCapability {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: prompt %s needs input that this connection (MCP %s) cannot provide; use MCP %s",
			x.tool, x.ses.Version, mcp.LatestVersion)
	}
	return res, err
}

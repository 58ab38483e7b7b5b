package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// Tools for legacy sessions: the same backend, results in the shapes of
// 2025-06-18 and 2025-11-25, which have no resultType, cache hints or
// serverInfo in _meta, and want objects where 2026-07-28 takes any JSON
// value (outputSchema, structuredContent).

type legacyListToolsResult struct {
	Tools      []mcp.Tool `json:"tools"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// legacyListTools returns one page of the caller's tools.
func (x *exchange) legacyListTools() (any, error) {
	page, next, err := x.toolPage()
	if err != nil {
		return nil, err
	}
	for i := range page {
		if !objectSchema(page[i].OutputSchema) {
			// A legacy client may not be able to read the tool at all
			// otherwise; the text content still carries the output.
			page[i].OutputSchema = nil
		}
	}
	return legacyListToolsResult{Tools: page, NextCursor: next}, nil
}

// objectSchema reports whether a JSON schema has "type": "object" at its
// root, as legacy revisions require of an outputSchema.
func objectSchema(raw json.RawMessage) bool {
	var s struct{ Type string }
	return json.Unmarshal(raw, &s) == nil && s.Type == "object"
}

// legacyCallTool runs a tools/call of a legacy session. Input the tool
// needs (a person's confirmation, a sample of the client's model, its
// roots) is asked for the legacy way when the session declared the
// capability: as a request on the call's stream, whose answer the client
// POSTs to any replica and a mailbox brings back here (legacy_elicit.go).
// Otherwise such a tool answers with a tool error the model can explain.
func (x *exchange) legacyCallTool() (any, error) {
	ctx, stop := x.cancellable()
	defer stop()
	call, err := x.toolCall(x.legacyCapabilities())
	if err != nil {
		return nil, err
	}
	if level := x.sessionLevel(); level != "" {
		// The level the session set with logging/setLevel stands in for
		// 2026's per-request logLevel.
		call.LogLevel, call.Log = level, x.out.message
	}
	res, err := x.runCall(ctx, call)
	for round := 0; err == nil && res.InputRequired != nil && round < maxAskRounds; round++ {
		var answers json.RawMessage
		if answers, err = x.askRound(ctx, res.InputRequired); err != nil {
			break
		}
		call.InputResponses, call.RequestState = answers, res.InputRequired.RequestState
		res, err = x.runCall(ctx, call)
	}
	if x.cancelled.Load() {
		return nil, context.Canceled
	}
	return x.legacyToolResult(res, err)
}

// legacyToolResult is what a legacy client gets for a call that ended
// with res or err: input it could not be asked for is a tool error, and
// structuredContent must be an object.
func (x *exchange) legacyToolResult(res *mcp.CallToolResult, err error) (any, error) {
	var je *jsonrpc.Error
	var refused *askRefused
	var waiting *undecided
	switch {
	case errors.As(err, &waiting):
		return x.undecidedResult(waiting), nil
	case errors.Is(err, errCannotAsk):
		return x.cannotAsk(x.tool + " needs input this server cannot ask for here"), nil
	case errors.As(err, &je) && je.Code == jsonrpc.MissingRequiredClientCapability:
		return x.cannotAsk(je.Message), nil
	case errors.As(err, &refused):
		x.toolError = true
		text := "Not done: " + x.tool + " needed input, and " + refused.Error() + ". Try again if the client can answer."
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}, nil
	case err != nil:
		return nil, err
	case res.InputRequired != nil:
		return x.cannotAsk(x.tool + " needs more input than it could ask for in " + strconv.Itoa(maxAskRounds) + " rounds"), nil
	}
	if len(res.StructuredContent) > 0 && !isObject(res.StructuredContent) {
		res.StructuredContent = nil // legacy revisions take objects only
	}
	return res, nil
}

// cannotAsk is the tool error of a call that needs input a legacy session
// cannot ask for.
func (x *exchange) cannotAsk(why string) *mcp.CallToolResult {
	x.toolError = true
	text := "Not done: " + why + ", which this connection (MCP " + x.ses.Version +
		") cannot ask for. Ask the person to do it in Taskwire, or use a client that speaks MCP " + mcp.LatestVersion + "."
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}
}

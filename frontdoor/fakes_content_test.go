package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/services/identity"
)

// fakeContent serves the resources, prompts and completions of the golden
// conversations: acme has the boards main and ops, and 150 tasks.
type fakeContent struct{}

var _ interface {
	ResourceBackend
	PromptBackend
	CompletionBackend
} = fakeContent{}

const fakeTemplate = "taskwire://boards/{board}/context"

func fakeBoards(c identity.Caller) []string {
	if c.Tenant == "acme" {
		return []string{"main", "ops"}
	}
	return nil
}

func (fakeContent) Resources(_ context.Context, c identity.Caller) ([]mcp.Resource, error) {
	var out []mcp.Resource
	for _, b := range fakeBoards(c) {
		out = append(out, mcp.Resource{
			URI: "taskwire://boards/" + b + "/context", Name: b + "-context",
			Title: "Board " + b, Description: "Lanes, members and rules of " + b + ".", MIMEType: "application/json",
		})
	}
	return out, nil
}

func (fakeContent) ResourceTemplates(identity.Caller) []mcp.ResourceTemplate {
	return []mcp.ResourceTemplate{{URITemplate: fakeTemplate, Name: "board-context", Title: "Board context", MIMEType: "application/json"}}
}

func (fakeContent) ReadResource(_ context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error) {
	for _, b := range fakeBoards(c) {
		if uri == "taskwire://boards/"+b+"/context" {
			text := fmt.Sprintf(`{"board":%q,"lanes":["backlog","next","doing","done"],"rules":"","members":[{"handle":"alice","kind":"human","role":"owner"}]}`, b)
			return []mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}, nil
		}
	}
	if uri == "taskwire://boards/broken/context" {
		return nil, errors.New("database at db.internal:5432 unreachable")
	}
	return nil, &mcp.ResourceNotFoundError{URI: uri}
}

func (fakeContent) Prompts(identity.Caller) []mcp.Prompt {
	return []mcp.Prompt{{
		Name: "standup", Title: "Standup", Description: "Summarise a board.",
		Arguments: []mcp.PromptArgument{{Name: "board", Description: "The board's slug."}},
	}}
}

func (fakeContent) GetPrompt(_ context.Context, _ identity.Caller, name string, args map[string]string) (*mcp.PromptResult, error) {
	if name != "standup" {
		return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "Unknown prompt: " + name, Data: map[string]string{"prompt": name}}
	}
	for k := range args {
		if k != "board" {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: prompt standup takes no argument %q", k)
		}
	}
	board := args["board"]
	if board == "" {
		board = "all boards"
	}
	return &mcp.PromptResult{
		Description: "Standup for " + board,
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("Give a standup for " + board + ".\n\nDoing:\n- T-3 \"Fix the build\"")}},
	}, nil
}

func (fakeContent) Complete(_ context.Context, c identity.Caller, req *mcp.CompleteRequest) (*mcp.Completion, error) {
	if req.RefType == mcp.RefPrompt && req.RefName != "standup" || req.RefType == mcp.RefResource && req.RefName != fakeTemplate {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: unknown reference %s", req.RefName)
	}
	var values []string
	switch req.Argument {
	case "board":
		values = fakeBoards(c)
	case "ref":
		for i := 1; i <= 150; i++ {
			values = append(values, fmt.Sprintf("T-%d", i))
		}
	}
	out := &mcp.Completion{Values: []string{}}
	for _, v := range values {
		if strings.HasPrefix(v, req.Value) {
			out.Values = append(out.Values, v)
		}
	}
	out.Total = len(out.Values)
	return out, nil // the handler caps the values at 100
}

package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
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

func (fakeContent) ResourceTemplates(context.Context, identity.Caller) ([]mcp.ResourceTemplate, error) {
	return []mcp.ResourceTemplate{{URITemplate: fakeTemplate, Name: "board-context", Title: "Board context", MIMEType: "application/json"}}, nil
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

func (fakeContent) Prompts(context.Context, identity.Caller) ([]mcp.Prompt, error) {
	return []mcp.Prompt{{
		Name: "standup", Title: "Standup", Description: "Summarise a board.",
		Arguments: []mcp.PromptArgument{{Name: "board", Description: "The board's slug."}},
	}}, nil
}

func (fakeContent) GetPrompt(_ context.Context, _ identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error) {
	name, args := req.Name, req.Arguments
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

// richContent is fakeContent with what a worker's ContentService may
// serve besides: a binary resource, test://static-binary, and a prompt,
// greet, which asks for the client's name first: input_required with a
// request state, then the greeting on the retry that answers. greet needs
// the elicitation capability, and takes only the state it issued.
type richContent struct{ fakeContent }

func (r richContent) ReadResource(ctx context.Context, c identity.Caller, uri string) ([]mcp.ResourceContents, error) {
	if uri == "test://static-binary" {
		return []mcp.ResourceContents{{URI: uri, MIMEType: "image/png", Blob: "iVBORw0KGgo="}}, nil
	}
	return r.fakeContent.ReadResource(ctx, c, uri)
}

const greetState = "greet-state-1"

func (p richContent) Prompts(ctx context.Context, c identity.Caller) ([]mcp.Prompt, error) {
	ps, err := p.fakeContent.Prompts(ctx, c)
	return append(ps, mcp.Prompt{Name: "greet", Description: "Greet whoever asks."}), err
}

func (p richContent) GetPrompt(ctx context.Context, c identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error) {
	if req.Name != "greet" {
		return p.fakeContent.GetPrompt(ctx, c, req)
	}
	var caps struct{ Elicitation json.RawMessage }
	if json.Unmarshal(req.ClientCapabilities, &caps) != nil || caps.Elicitation == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.MissingRequiredClientCapability, Message: "greet needs input through elicitation/create",
			Data: map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}
	}
	var answers struct {
		Name struct {
			Action  string
			Content struct{ Name string }
		}
	}
	switch {
	case req.RequestState == "":
		form := map[string]any{"mode": "form", "message": "Who is asking?", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"},
		}}
		return &mcp.PromptResult{InputRequired: &mcp.InputRequiredResult{
			InputRequests: map[string]mcp.InputRequest{"name": {Method: "elicitation/create", Params: form}},
			RequestState:  greetState,
		}}, nil
	case req.RequestState != greetState || json.Unmarshal(req.InputResponses, &answers) != nil:
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "invalid params: requestState was not issued for this call")
	}
	return &mcp.PromptResult{
		Description: "A greeting",
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("Hello, " + answers.Name.Content.Name + ".")}},
	}, nil
}

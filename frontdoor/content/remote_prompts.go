package content

import (
	"context"
	"encoding/json"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// Prompts returns the worker's prompts.
func (r *Remote) Prompts(ctx context.Context, c identity.Caller) ([]mcp.Prompt, error) {
	ctx, cancel := as(ctx, c, r.timeout)
	defer cancel()
	resp, err := r.svc.ListPrompts(ctx, &mcpv1.ListPromptsRequest{})
	if err != nil {
		return nil, translate(err, "ListPrompts", invalidParams)
	}
	out := make([]mcp.Prompt, 0, len(resp.GetPrompts()))
	for _, p := range resp.GetPrompts() {
		prompt := mcp.Prompt{Name: p.GetName(), Title: p.GetTitle(), Description: p.GetDescription()}
		for _, a := range p.GetArguments() {
			prompt.Arguments = append(prompt.Arguments, mcp.PromptArgument{
				Name: a.GetName(), Title: a.GetTitle(), Description: a.GetDescription(), Required: a.GetRequired(),
			})
		}
		out = append(out, prompt)
	}
	return out, nil
}

// GetPrompt renders a prompt of the worker. A prompt may ask for the
// client's input first, as a tool may: the worker's InputRequired goes out
// as input_required with its state sealed (bound to the caller, the prompt
// and its arguments), and the retry's answers and opened state come back
// to the worker in GetPromptRequest.input.
func (r *Remote) GetPrompt(ctx context.Context, c identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error) {
	b, err := promptBinding(c, req)
	if err != nil {
		return nil, err
	}
	input, err := r.rounds.Input(b, req.ClientCapabilities, req.InputResponses, req.RequestState)
	if err != nil {
		return nil, err
	}
	resp, err := r.getPrompt(ctx, c, &mcpv1.GetPromptRequest{Name: req.Name, Arguments: req.Arguments, Input: input})
	if err != nil {
		return nil, err
	}
	if ir := resp.GetInputRequired(); ir != nil {
		asked, err := r.rounds.Required(b, ir, req.ClientCapabilities)
		if err != nil {
			return nil, err
		}
		return &mcp.PromptResult{InputRequired: asked}, nil
	}
	out := &mcp.PromptResult{Description: resp.GetDescription(), Messages: make([]mcp.PromptMessage, 0, len(resp.GetMessages()))}
	for _, m := range resp.GetMessages() {
		out.Messages = append(out.Messages, mcp.PromptMessage{Role: m.GetRole(), Content: mcp.ContentFromProto(m.GetContent())})
	}
	return out, nil
}

func (r *Remote) getPrompt(ctx context.Context, c identity.Caller, req *mcpv1.GetPromptRequest) (*mcpv1.GetPromptResponse, error) {
	ctx, cancel := as(ctx, c, r.timeout)
	defer cancel()
	resp, err := r.svc.GetPrompt(ctx, req)
	if err != nil {
		return nil, translate(err, "GetPrompt", invalidParams)
	}
	return resp, nil
}

// promptBinding is what a prompt's request state is bound to. The
// arguments are canonical JSON (encoding/json sorts map keys), and none
// are the same as {}, so that a retry with the same arguments matches
// however the client spelled them.
func promptBinding(c identity.Caller, req *mcp.PromptRequest) (mrtr.Binding, error) {
	args := req.Arguments
	if args == nil {
		args = map[string]string{}
	}
	raw, err := json.Marshal(args)
	return mrtr.Binding{Tenant: c.Tenant, Member: c.Member, Target: "prompts/get " + req.Name, Args: raw}, err
}

package conformance

import (
	"context"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// fixturePrompt is a prompt and how it renders: render gets the
// arguments, every required one present, and what the client answered.
type fixturePrompt struct {
	def    *mcpv1.Prompt
	render func(args map[string]string, in *mcpv1.ClientInput) *mcpv1.GetPromptResponse
}

func required(name, description string) *mcpv1.PromptArgument {
	return &mcpv1.PromptArgument{Name: name, Description: description, Required: true}
}

var fixturePrompts = []fixturePrompt{
	{
		&mcpv1.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
		func(map[string]string, *mcpv1.ClientInput) *mcpv1.GetPromptResponse {
			return messages(user(text("This is a simple prompt for testing.")))
		},
	},
	{
		&mcpv1.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
			Arguments: []*mcpv1.PromptArgument{required("arg1", "First test argument"), required("arg2", "Second test argument")}},
		func(args map[string]string, _ *mcpv1.ClientInput) *mcpv1.GetPromptResponse {
			return messages(user(text("Prompt with arguments: arg1='" + args["arg1"] + "', arg2='" + args["arg2"] + "'")))
		},
	},
	{
		&mcpv1.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource",
			Description: "A prompt that includes an embedded resource",
			Arguments:   []*mcpv1.PromptArgument{required("resourceUri", "URI of the resource to embed")}},
		func(args map[string]string, _ *mcpv1.ClientInput) *mcpv1.GetPromptResponse {
			return messages(
				user(embedded(args["resourceUri"], "text/plain", "Embedded resource content for testing.")),
				user(text("Please process the embedded resource above.")),
			)
		},
	},
	{
		&mcpv1.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
		func(map[string]string, *mcpv1.ClientInput) *mcpv1.GetPromptResponse {
			return messages(user(image(redPixel, "image/png")), user(text("Please analyze the image above.")))
		},
	},
	{
		&mcpv1.Prompt{Name: "test_input_required_result_prompt", Title: "Prompt Requiring Input",
			Description: "A prompt that asks the user for context (in an input_required result) before it renders"},
		contextPrompt,
	},
}

func user(c *mcpv1.Content) *mcpv1.PromptMessage {
	return &mcpv1.PromptMessage{Role: "user", Content: c}
}

func messages(m ...*mcpv1.PromptMessage) *mcpv1.GetPromptResponse {
	return &mcpv1.GetPromptResponse{Messages: m}
}

// contextPrompt renders with the context the user gave under
// "user_context", asking for it first.
func contextPrompt(_ map[string]string, in *mcpv1.ClientInput) *mcpv1.GetPromptResponse {
	if c, ok := acceptedString(in, "user_context", "context"); ok {
		return messages(user(text("Answer with this context in mind: " + c)))
	}
	if action, ok := refused(in, "user_context"); ok {
		return messages(user(text("Answer without any particular context (the user chose to " + action + " giving one).")))
	}
	return &mcpv1.GetPromptResponse{InputRequired: &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{
		"user_context": askString("What context should the prompt use?", "context"),
	}}}
}

// ListPrompts returns the fixture prompts.
func (s *Service) ListPrompts(context.Context, *mcpv1.ListPromptsRequest) (*mcpv1.ListPromptsResponse, error) {
	resp := &mcpv1.ListPromptsResponse{}
	for _, p := range fixturePrompts {
		resp.Prompts = append(resp.Prompts, p.def)
	}
	return resp, nil
}

// GetPrompt renders a fixture prompt.
func (s *Service) GetPrompt(_ context.Context, req *mcpv1.GetPromptRequest) (*mcpv1.GetPromptResponse, error) {
	for _, p := range fixturePrompts {
		if p.def.GetName() != req.GetName() {
			continue
		}
		for _, a := range p.def.GetArguments() {
			if _, ok := req.GetArguments()[a.GetName()]; a.GetRequired() && !ok {
				return nil, domainerr.New(domainerr.Invalid, "Prompt %s needs the argument %s (%s)", p.def.GetName(), a.GetName(), a.GetDescription())
			}
		}
		resp := p.render(req.GetArguments(), req.GetInput())
		if resp.GetInputRequired() == nil {
			resp.Description = p.def.GetDescription()
		}
		return resp, nil
	}
	return nil, domainerr.New(domainerr.Invalid, "No prompt %q: prompts/list names the prompts there are", req.GetName())
}

package conformance

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/progress"
)

// SimpleText returns one text block.
func (s *Service) SimpleText(context.Context, *conformancev1.SimpleTextRequest) (*conformancev1.SimpleTextResponse, error) {
	return &conformancev1.SimpleTextResponse{Output: textOutput("This is a simple text response for testing.")}, nil
}

// ImageContent returns a 1x1 red PNG.
func (s *Service) ImageContent(context.Context, *conformancev1.ImageContentRequest) (*conformancev1.ImageContentResponse, error) {
	return &conformancev1.ImageContentResponse{Output: output(image(redPixel, "image/png"))}, nil
}

// AudioContent returns a tiny WAV file.
func (s *Service) AudioContent(context.Context, *conformancev1.AudioContentRequest) (*conformancev1.AudioContentResponse, error) {
	return &conformancev1.AudioContentResponse{Output: output(audio(silence, "audio/wav"))}, nil
}

// EmbeddedResource returns one embedded text resource.
func (s *Service) EmbeddedResource(context.Context, *conformancev1.EmbeddedResourceRequest) (*conformancev1.EmbeddedResourceResponse, error) {
	return &conformancev1.EmbeddedResourceResponse{Output: output(
		embedded("test://embedded-resource", "text/plain", "This is an embedded resource content."),
	)}, nil
}

// MultipleContentTypes returns a text, an image and a JSON resource.
func (s *Service) MultipleContentTypes(context.Context, *conformancev1.MultipleContentTypesRequest) (*conformancev1.MultipleContentTypesResponse, error) {
	return &conformancev1.MultipleContentTypesResponse{Output: output(
		text("Multiple content types test:"),
		image(redPixel, "image/png"),
		embedded("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	)}, nil
}

// ErrorHandling fails as a tool: the model sees the text and isError.
func (s *Service) ErrorHandling(context.Context, *conformancev1.ErrorHandlingRequest) (*conformancev1.ErrorHandlingResponse, error) {
	out := textOutput("This tool intentionally returns an error for testing")
	out.IsError = true
	return &conformancev1.ErrorHandlingResponse{Output: out}, nil
}

// ToolWithLogging logs three steps at info, a pause apart.
func (s *Service) ToolWithLogging(ctx context.Context, _ *conformancev1.ToolWithLoggingRequest) (*conformancev1.ToolWithLoggingResponse, error) {
	out, err := logSteps(ctx, "Tool with logging executed successfully",
		"Tool execution started", "Tool processing data", "Tool execution completed")
	if err != nil {
		return nil, err
	}
	return &conformancev1.ToolWithLoggingResponse{Output: out}, nil
}

// LoggingTool logs three steps at info; whether they reach the client is
// the worker's and the front door's business (only a client that set a
// log level gets any).
func (s *Service) LoggingTool(ctx context.Context, _ *conformancev1.LoggingToolRequest) (*conformancev1.LoggingToolResponse, error) {
	out, err := logSteps(ctx, "Logging diagnostic completed",
		"Logging diagnostic started", "Logging diagnostic running", "Logging diagnostic finished")
	if err != nil {
		return nil, err
	}
	return &conformancev1.LoggingToolResponse{Output: out}, nil
}

// logSteps logs each step at info, pausing between them, and then returns
// done as the tool's text.
func logSteps(ctx context.Context, done string, steps ...string) (*mcpv1.ToolOutput, error) {
	for i, step := range steps {
		if i > 0 {
			if err := pause(ctx, stepPause); err != nil {
				return nil, err
			}
		}
		progress.Log(ctx, "info", step)
	}
	return textOutput(done), nil
}

// ToolWithProgress reports 0, 50 and 100 of 100, a pause apart.
func (s *Service) ToolWithProgress(ctx context.Context, _ *conformancev1.ToolWithProgressRequest) (*conformancev1.ToolWithProgressResponse, error) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, stepPause); err != nil {
				return nil, err
			}
		}
		progress.Report(ctx, done, 100, fmt.Sprintf("Completed step %g of 100", done))
	}
	return &conformancev1.ToolWithProgressResponse{
		Output: textOutput("Progress reported: 0, 50 and 100 of 100 steps completed."),
	}, nil
}

// TriggerToolChange announces to the caller's tenant that its tool list
// changed, which front doors pass on as notifications/tools/list_changed.
// The list itself stays as it is.
func (s *Service) TriggerToolChange(ctx context.Context, _ *conformancev1.TriggerToolChangeRequest) (*conformancev1.TriggerToolChangeResponse, error) {
	out, err := s.announce(ctx, events.ToolsChanged, "tool")
	return &conformancev1.TriggerToolChangeResponse{Output: out}, err
}

// TriggerPromptChange is TriggerToolChange for the prompt list
// (notifications/prompts/list_changed).
func (s *Service) TriggerPromptChange(ctx context.Context, _ *conformancev1.TriggerPromptChangeRequest) (*conformancev1.TriggerPromptChangeResponse, error) {
	out, err := s.announce(ctx, events.PromptsChanged, "prompt")
	return &conformancev1.TriggerPromptChangeResponse{Output: out}, err
}

// announce publishes a list change of kind to the caller's tenant.
func (s *Service) announce(ctx context.Context, kind, list string) (*mcpv1.ToolOutput, error) {
	c, ok := identity.FromContext(ctx)
	if !ok || c.Validate() != nil {
		return nil, domainerr.New(domainerr.Unauthenticated, "No verified caller: sign in with a token for a member of a tenant")
	}
	if err := s.events.Publish(c.Tenant, events.Event{Kind: kind}); err != nil {
		return nil, domainerr.Wrap(domainerr.Unavailable, err, "The %s list change could not be announced; try again", domainerr.Safe(list))
	}
	return textOutput("Announced a " + list + " list change: listening clients get notifications/" + list + "s/list_changed."), nil
}

// Greet greets name.
func (s *Service) Greet(_ context.Context, req *conformancev1.GreetRequest) (*conformancev1.GreetResponse, error) {
	return &conformancev1.GreetResponse{Output: textOutput("Hello, " + req.GetName() + "!")}, nil
}

// SlowCompute waits req.seconds, or until its call is cancelled.
func (s *Service) SlowCompute(ctx context.Context, req *conformancev1.SlowComputeRequest) (*conformancev1.SlowComputeResponse, error) {
	if err := pause(ctx, time.Duration(req.GetSeconds())*time.Second); err != nil {
		return nil, err
	}
	return &conformancev1.SlowComputeResponse{Output: textOutput(fmt.Sprintf("Computed %q after %d seconds.", req.GetLabel(), req.GetSeconds()))}, nil
}

// FailingJob fails as a tool after a second.
func (s *Service) FailingJob(ctx context.Context, _ *conformancev1.FailingJobRequest) (*conformancev1.FailingJobResponse, error) {
	if err := pause(ctx, time.Second); err != nil {
		return nil, err
	}
	out := textOutput("This job intentionally failed (a tool error, for testing).")
	out.IsError = true
	return &conformancev1.FailingJobResponse{Output: out}, nil
}

// ProtocolErrorJob fails inside the server.
func (s *Service) ProtocolErrorJob(context.Context, *conformancev1.ProtocolErrorJobRequest) (*conformancev1.ProtocolErrorJobResponse, error) {
	return nil, status.Error(codes.Internal, "conformance: protocol_error_job fails on purpose")
}

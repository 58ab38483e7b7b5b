package toolcall

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// failure translates a worker's gRPC status into what the client gets: a
// tool result with isError for anything a model can act on, a bare context
// error when the client has gone (so nothing is sent), and an error for the
// rest, which the front door answers with -32603.
func (b *Backend) failure(ctx context.Context, tool string, err error) (*mcp.CallToolResult, error) {
	if ctx.Err() == context.Canceled {
		return nil, context.Canceled
	}
	st := status.Convert(err)
	var text string
	switch st.Code() {
	case codes.InvalidArgument, codes.NotFound, codes.FailedPrecondition, codes.Aborted,
		codes.AlreadyExists, codes.OutOfRange, codes.PermissionDenied:
		text = st.Message()
	case codes.Unauthenticated:
		text = "Your membership could not be verified: " + st.Message()
	case codes.DeadlineExceeded:
		text = fmt.Sprintf("%s did not finish in time and was stopped; nothing it had not finished was saved. Try again, or with less work at once.", tool)
	case codes.Unavailable, codes.ResourceExhausted:
		text = "The board is temporarily unavailable. Try again in a moment."
	case codes.Canceled:
		return nil, context.Canceled
	default:
		return nil, fmt.Errorf("toolcall: %s: %w", tool, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}, nil
}

package toolcall

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/services/access"
)

// failure translates a worker's gRPC status into what the client gets: a
// tool result with isError for anything a model can act on (no worker or
// database to serve it included: unavailableText), a bare context error
// when the client has gone (so nothing is sent), and an error for the
// rest, which the front door answers with -32603.
//
// Refusals are told apart by their reason (access.Reason): a token that
// lacks the tool's scope is a *mcp.ScopeError (HTTP 403 with an
// insufficient_scope challenge, as when the front door finds it itself),
// since a stronger token lifts it, and so is a token limited to toolsets
// that do not hold the tool (*mcp.ToolsetError); a role that does not
// permit the tool is a tool result with the worker's sentence, since no
// token lifts it.
func (b *Backend) failure(ctx context.Context, tool string, err error) (*mcp.CallToolResult, error) {
	if ctx.Err() == context.Canceled {
		return nil, context.Canceled
	}
	switch reason, md := access.Reason(err); {
	case reason == access.ReasonInsufficientScope && md["scope"] != "":
		return nil, &mcp.ScopeError{Tool: tool, Scope: md["scope"]}
	case reason == access.ReasonToolsetForbids:
		return nil, toolsetError(tool, md["toolset"], strings.FieldsFunc(md["toolsets"], func(r rune) bool { return r == ',' }))
	}
	st := status.Convert(err)
	if access.IsQuotaExceeded(err) || access.IsDiskFull(err) {
		// A tenant's quota or a full disk, not gRPC's own
		// RESOURCE_EXHAUSTED: the worker's sentence says what to free.
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(st.Message())}, IsError: true}, nil
	}
	var text string
	switch st.Code() {
	case codes.InvalidArgument, codes.NotFound, codes.FailedPrecondition, codes.Aborted,
		codes.AlreadyExists, codes.OutOfRange, codes.PermissionDenied:
		text = st.Message()
	case codes.Unauthenticated:
		return nil, &mcp.RevokedError{Reason: st.Message()}
	case codes.DeadlineExceeded:
		text = fmt.Sprintf("%s did not finish in time and was stopped; nothing it had not finished was saved. Try again, or with less work at once.", tool)
	case codes.Unavailable, codes.ResourceExhausted:
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(unavailableText)}, IsError: true, Unavailable: true}, nil
	case codes.Canceled:
		return nil, context.Canceled
	default:
		return nil, fmt.Errorf("toolcall: %s: %w", tool, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: true}, nil
}

// toolsetError is the refusal of tool, of toolset, to a token limited to
// toolsets, in the worker's words.
func toolsetError(tool, toolset string, toolsets []string) *mcp.ToolsetError {
	return &mcp.ToolsetError{Tool: tool, Toolset: toolset, Toolsets: toolsets, Message: access.ToolsetSentence(tool, toolset, toolsets)}
}

// unavailableText tells a client that no worker could serve its call and
// that retrying is safe.
const unavailableText = mcp.UnavailableText

// accessFailure translates the failure of asking for the caller's access:
// a membership the worker cannot find is a request the front door cannot
// serve as sent; no worker (or database) to ask is an
// *mcp.UnavailableError, which says to try again; anything else it
// answers with -32603 and a neutral message.
func accessFailure(err error) error {
	switch st := status.Convert(err); st.Code() {
	case codes.Canceled:
		return context.Canceled
	case codes.Unauthenticated:
		return &mcp.RevokedError{Reason: st.Message()}
	case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded:
		return &mcp.UnavailableError{Cause: err}
	}
	return fmt.Errorf("toolcall: access: %w", err)
}

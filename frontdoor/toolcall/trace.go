package toolcall

import (
	"context"
	"regexp"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// traceparentRE is a W3C traceparent of version 00 with non-zero ids.
var traceparentRE = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// labelContext carries the client's session label to the worker, whose
// audit log records it.
func labelContext(ctx context.Context, call *mcp.ToolCall) context.Context {
	if call.SessionLabel == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, identity.MDSessionLabel, call.SessionLabel)
}

// traceContext carries the client's W3C trace context into the gRPC call,
// under the header names W3C propagators read, so the worker's work joins
// the client's trace. A malformed traceparent is dropped, not refused:
// tracing must never fail a call.
func traceContext(ctx context.Context, call *mcp.ToolCall) context.Context {
	tp := call.TraceParent
	if !traceparentRE.MatchString(tp) || tp[3:35] == "00000000000000000000000000000000" || tp[36:52] == "0000000000000000" {
		return ctx
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "traceparent", tp)
	if ts := call.TraceState; ts != "" && len(ts) <= 512 {
		ctx = metadata.AppendToOutgoingContext(ctx, "tracestate", ts)
	}
	return ctx
}

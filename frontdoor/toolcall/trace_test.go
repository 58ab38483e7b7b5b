package toolcall

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

func TestTraceContext(t *testing.T) {
	valid := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for tp, want := range map[string]bool{
		valid: true,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01": false, // zero trace id
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01": false, // zero span id
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": false, // unknown version
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01": false, // upper case
		"garbage": false,
		"":        false,
	} {
		ctx := traceContext(context.Background(), &mcp.ToolCall{TraceParent: tp, TraceState: "vendor=1"})
		md, _ := metadata.FromOutgoingContext(ctx)
		got := md.Get("traceparent")
		if (len(got) == 1 && got[0] == tp) != want || (want && md.Get("tracestate")[0] != "vendor=1") {
			t.Errorf("traceContext(%q) metadata = %v, want carried %v", tp, md, want)
		}
	}
}

package toolcall

import (
	"context"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
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

func TestLabelContext(t *testing.T) {
	ctx := labelContext(context.Background(), &mcp.ToolCall{SessionLabel: "laptop claude"})
	md, _ := metadata.FromOutgoingContext(ctx)
	if got := md.Get(identity.MDSessionLabel); len(got) != 1 || got[0] != "laptop claude" {
		t.Errorf("metadata %v, want the label", md)
	}
	md, _ = metadata.FromOutgoingContext(labelContext(context.Background(), &mcp.ToolCall{}))
	if len(md.Get(identity.MDSessionLabel)) != 0 {
		t.Errorf("no label sent metadata %v", md)
	}
}

package telemetry_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/telemetry"
)

// TestTraceFromMetaTraceparent: a tools/call whose _meta names a trace
// gets the front door's span as a child of the client's span, and the gRPC
// client and server spans and the database's beneath it, all in the
// client's trace.
func TestTraceFromMetaTraceparent(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel := newTelemetry(t, telemetry.Config{SpanProcessor: rec})
	e := newEnv(t, tel, slog.New(slog.DiscardHandler))
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	e.tool(t, "tasks_create", map[string]any{"title": "Traced"}, map[string]any{
		"traceparent": "00-" + traceID + "-" + parentID + "-01",
		"tracestate":  "vendor=x",
	})

	var spans []sdktrace.ReadOnlySpan
	find := func(pred func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
		for _, s := range spans {
			if pred(s) {
				return s
			}
		}
		return nil
	}
	kind := func(k trace.SpanKind, prefix string) func(sdktrace.ReadOnlySpan) bool {
		return func(s sdktrace.ReadOnlySpan) bool { return s.SpanKind() == k && strings.HasPrefix(s.Name(), prefix) }
	}
	// Spans end on the worker's side just after the client has its answer.
	poll.Until(t, 5*time.Second, "the worker's span", func() bool {
		spans = rec.Ended()
		return find(kind(trace.SpanKindServer, "taskwire.v1.BoardService/CreateTask")) != nil
	})

	front := find(kind(trace.SpanKindServer, "tools/call"))
	client := find(kind(trace.SpanKindClient, "taskwire.v1.BoardService/CreateTask"))
	server := find(kind(trace.SpanKindServer, "taskwire.v1.BoardService/CreateTask"))
	db := find(kind(trace.SpanKindClient, "INSERT"))
	if front == nil || client == nil || server == nil || db == nil {
		t.Fatalf("spans front door %v, gRPC client %v, gRPC server %v, database INSERT %v; want all (have %s)",
			front != nil, client != nil, server != nil, db != nil, names(spans))
	}
	if got := front.Name(); got != "tools/call tasks_create" {
		t.Errorf("front door span name = %q, want %q", got, "tools/call tasks_create")
	}
	for _, s := range []sdktrace.ReadOnlySpan{front, client, server, db} {
		if got := s.SpanContext().TraceID().String(); got != traceID {
			t.Errorf("span %s trace id = %s, want the client's %s", s.Name(), got, traceID)
		}
	}
	chain := []struct {
		child, parent sdktrace.ReadOnlySpan
	}{{client, front}, {server, client}}
	if got := front.Parent().SpanID().String(); got != parentID {
		t.Errorf("front door span parent = %s, want the client's span %s", got, parentID)
	}
	if got := front.SpanContext().TraceState().Get("vendor"); got != "x" {
		t.Errorf("front door span tracestate vendor = %q, want x", got)
	}
	for _, c := range chain {
		if c.child.Parent().SpanID() != c.parent.SpanContext().SpanID() {
			t.Errorf("span %s's parent = %s, want %s (%s)", c.child.Name(), c.child.Parent().SpanID(), c.parent.SpanContext().SpanID(), c.parent.Name())
		}
	}
	for _, kv := range db.Attributes() {
		if strings.Contains(kv.Value.String(), "Traced") {
			t.Errorf("database span attribute %s = %q holds task text", kv.Key, kv.Value.String())
		}
	}
}

func names(spans []sdktrace.ReadOnlySpan) string {
	var out []string
	for _, s := range spans {
		out = append(out, s.SpanKind().String()+":"+s.Name())
	}
	return strings.Join(out, ", ")
}

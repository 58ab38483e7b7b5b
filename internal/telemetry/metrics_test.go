package telemetry_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/telemetry"
)

// scrape returns what /metrics serves.
func scrape(t *testing.T, tel *telemetry.Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics = %d, want 200", rec.Code)
	}
	return rec.Body.String()
}

// TestMetricsAfterRealCalls: calls through a real front door and worker
// leave series with bounded labels: methods, catalogue tools, outcomes,
// codes and full gRPC methods, never a tenant or a task.
func TestMetricsAfterRealCalls(t *testing.T) {
	tel := newTelemetry(t, telemetry.Config{})
	e := newEnv(t, tel, slog.New(slog.DiscardHandler))
	e.call(t, "server/discover", nil, nil)
	e.tool(t, "tasks_create", map[string]any{"title": "Secret plan"}, nil)
	e.tool(t, "tasks_get", map[string]any{"ref": "T-404"}, nil)
	e.call(t, "tools/call", map[string]any{"name": "no_such_tool_for_acme"}, nil)

	got := scrape(t, tel)
	for _, want := range []string{
		`taskwire_mcp_requests_total{code="",method="server/discover",outcome="ok",tool=""} 1`,
		`taskwire_mcp_requests_total{code="",method="tools/call",outcome="ok",tool="tasks_create"} 1`,
		`taskwire_mcp_requests_total{code="",method="tools/call",outcome="tool_error",tool="tasks_get"} 1`,
		`taskwire_mcp_requests_total{code="-32602",method="tools/call",outcome="refused",tool="unknown"} 1`,
		`taskwire_mcp_request_duration_seconds_count{method="tools/call",outcome="ok",tool="tasks_create"} 1`,
		`taskwire_mcp_requests_in_flight 0`,
		`taskwire_mcp_sse_streams_open 0`,
		`taskwire_grpc_server_handled_total{code="OK",method="/taskwire.v1.BoardService/CreateTask"} 1`,
		`taskwire_grpc_server_handled_total{code="NotFound",method="/taskwire.v1.BoardService/GetTask"} 1`,
		`taskwire_grpc_server_handling_seconds_count{method="/taskwire.v1.BoardService/CreateTask"} 1`,
		`taskwire_db_up 1`,
		`go_sql_open_connections{db_name="taskwire"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, leak := range []string{"acme", "Secret plan", "T-404", "no_such_tool_for_acme"} {
		if strings.Contains(got, leak) {
			t.Errorf("/metrics holds %q, which no label may carry", leak)
		}
	}
	if t.Failed() {
		t.Log(grepTaskwire(got))
	}
}

// grepTaskwire keeps the taskwire_ lines of a scrape, for failure output.
func grepTaskwire(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "taskwire_") {
			b.WriteString(line)
		}
	}
	return b.String()
}

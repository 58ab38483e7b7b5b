package tests

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestMetricsOfSeparateProcesses runs a worker and a front door as
// separate processes, makes calls through the front door, and scrapes
// each process as Prometheus would: the front door on --metrics-addr, the
// worker on its probes' port. The series an operator looks for are there,
// with labels from closed sets only, and the public port serves none.
func TestMetricsOfSeparateProcesses(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			d := newDeployment(t, b)
			nodetest.RunProc(t, d.dir, "migrate", "--db", d.db)
			w := d.startWorker(t, "worker", "127.0.0.1:0")
			metrics := d.startFrontWithMetrics(t, w.grpc)
			token := d.ownerToken(t)
			d.callForMetrics(t, token)
			d.checkListenStreamCounted(t, token, metrics)

			front := scrapeSettled(t, metrics, func(s *metricsScrape) bool {
				inFlight, _ := s.value("taskwire_mcp_requests_in_flight", nil)
				streams, _ := s.value("taskwire_mcp_sse_streams_open", nil)
				return inFlight == 0 && streams == 0
			})
			checkMCPSeries(t, front)
			front.equals(t, "taskwire_mcp_sse_streams_open", nil, 0)
			front.atLeast(t, "taskwire_mcp_progress_notifications_total", nil, 1)
			front.equals(t, "taskwire_nats_connected", nil, 1)
			front.absent(t, "taskwire_db_up") // front doors have no database
			front.leaks(t, secrets...)

			// The import is timed when its handler has returned.
			worker := scrapeSettled(t, "http://"+w.http+"/metrics", func(s *metricsScrape) bool {
				_, ok := s.value("taskwire_grpc_server_handling_seconds_count", metricLabels{"method": "/taskwire.v1.BoardService/ImportTasks"})
				return ok
			})
			checkGRPCSeries(t, worker)
			// In flight after the calls: the front door's health watch.
			// (That a call counts while it runs is tested with a watch
			// held open in package telemetry.)
			worker.atLeast(t, "taskwire_grpc_server_in_flight", nil, 1)
			worker.equals(t, "taskwire_nats_connected", nil, 1)
			worker.equals(t, "taskwire_db_up", nil, 1)
			worker.atLeast(t, "go_sql_max_open_connections", metricLabels{"db_name": "taskwire"}, 0)
			worker.leaks(t, secrets...)
			noPublicMetrics(t, d.url(""))
		})
	}
}

// startFrontWithMetrics starts d's front door in front of workers with
// metrics on a port of their own, and returns their URL.
func (d *deployment) startFrontWithMetrics(t *testing.T, workers string) string {
	t.Helper()
	args := append([]string{"frontdoor", "--addr", d.frontAddr, "--workers", workers, "--operator-secret-file", d.operator,
		"--metrics-addr", "127.0.0.1:0"}, d.shared()...)
	d.front = nodetest.StartProc(t, d.dir, "front door", args...)
	rec := d.front.Logged(t, "front door serving")
	addr, _ := rec["metrics"].(string)
	if addr == "" {
		t.Fatalf("front door serving record %v names no metrics address", rec)
	}
	return "http://" + addr + "/metrics"
}

// secrets are what the calls of callForMetrics send that no label may
// carry: the tenant, a task's title and ref, a tool name of the client's.
var secrets = []string{"acme", "Metrics are counted", "T-404", "no_such_tool_for_acme"}

// callForMetrics makes the calls whose series the tests look for: a
// create, a get of a missing task (a tool error), a call of a tool that
// does not exist (refused), and an import with progress.
func (d *deployment) callForMetrics(t *testing.T, token string) {
	t.Helper()
	cs := d.client(t, token, nil)
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Metrics are counted"})
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-404"}}); err != nil || !res.IsError {
		t.Fatalf("tasks_get T-404 = %v %s, want a tool error", err, textOf(res))
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool_for_acme"}); err == nil {
		t.Fatal("a call of a tool that does not exist succeeded")
	}
	params := &mcp.CallToolParams{Name: "tasks_import", Arguments: importArgs("Imported", 200)}
	params.SetProgressToken("metrics")
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("tasks_import = %v %s", err, textOf(res))
	}
}

// checkListenStreamCounted opens a listen stream (the go-sdk client does
// when it handles tools/list_changed and discover advertises it), which stays open until the
// client closes it: the front door counts it as an open SSE stream and a
// listen stream while it is open.
func (d *deployment) checkListenStreamCounted(t *testing.T, token, frontMetrics string) {
	t.Helper()
	cs := d.client(t, token, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}})
	defer cs.Close()
	open := scrapeSettled(t, frontMetrics, func(s *metricsScrape) bool {
		listening, _ := s.value("taskwire_mcp_listen_streams_open", nil)
		return listening == 1
	})
	open.equals(t, "taskwire_mcp_listen_streams_open", nil, 1)
	open.atLeast(t, "taskwire_mcp_sse_streams_open", nil, 1)
}

// checkMCPSeries: the front door counts and times MCP requests by method,
// tool (bounded by the catalogue) and outcome.
func checkMCPSeries(t *testing.T, s *metricsScrape) {
	t.Helper()
	call := func(tool, outcome string) metricLabels {
		return metricLabels{"method": "tools/call", "tool": tool, "outcome": outcome}
	}
	s.atLeast(t, "taskwire_mcp_requests_total", call("tasks_create", "ok"), 1)
	s.atLeast(t, "taskwire_mcp_requests_total", call("tasks_get", "tool_error"), 1)
	s.atLeast(t, "taskwire_mcp_requests_total", metricLabels{"method": "tools/call", "tool": "unknown", "code": "-32602"}, 1)
	s.atLeast(t, "taskwire_mcp_requests_total", call("tasks_import", "ok"), 1)
	s.atLeast(t, "taskwire_mcp_request_duration_seconds_count", call("tasks_create", "ok"), 1)
	s.atLeast(t, "taskwire_mcp_request_duration_seconds_bucket", metricLabels{"method": "tools/call", "tool": "tasks_import", "le": "+Inf"}, 1)
	s.equals(t, "taskwire_mcp_requests_in_flight", nil, 0)
	s.equals(t, "taskwire_mcp_listen_streams_open", nil, 0)
}

// checkGRPCSeries: the worker counts its gRPC calls by full method and
// status code, and times them by method.
func checkGRPCSeries(t *testing.T, s *metricsScrape) {
	t.Helper()
	board := "/taskwire.v1.BoardService/"
	s.atLeast(t, "taskwire_grpc_server_handled_total", metricLabels{"method": board + "CreateTask", "code": "OK"}, 1)
	s.atLeast(t, "taskwire_grpc_server_handled_total", metricLabels{"method": board + "GetTask", "code": "NotFound"}, 1)
	s.atLeast(t, "taskwire_grpc_server_handling_seconds_count", metricLabels{"method": board + "CreateTask"}, 1)
	s.atLeast(t, "go_goroutines", nil, 1)
}

// TestServeMetrics runs `taskwire serve` with --metrics-addr: one scrape
// shows both of its nodes, the front door's requests and the worker's
// calls, NATS (in process) and the database (SQLite).
func TestServeMetrics(t *testing.T) {
	dir := t.TempDir()
	p := nodetest.StartProc(t, dir, "serve", "serve", "--addr", "127.0.0.1:0", "--data", dir, "--metrics-addr", "127.0.0.1:0")
	rec := p.Logged(t, "taskwire serving")
	addr, _ := rec["metrics"].(string)
	endpoint, _ := rec["endpoint"].(string)
	if addr == "" || endpoint == "" {
		t.Fatalf("taskwire serving record %v names no metrics address or endpoint", rec)
	}
	token := regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`)
	poll.Until(t, 10*time.Second, "serve to print the first token", func() bool { return token.MatchString(p.Stdout.String()) })
	base := endpoint[:len(endpoint)-len("/api/mcp")]
	d := &deployment{frontAddr: base[len("http://"):]}
	cs := d.client(t, token.FindStringSubmatch(p.Stdout.String())[1], nil)
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Served"})

	s := scrapeSettled(t, "http://"+addr+"/metrics", func(s *metricsScrape) bool {
		streams, _ := s.value("taskwire_mcp_sse_streams_open", nil)
		_, timed := s.value("taskwire_grpc_server_handling_seconds_count", metricLabels{"method": "/taskwire.v1.BoardService/CreateTask"})
		return streams == 0 && timed
	})
	s.atLeast(t, "taskwire_mcp_requests_total", metricLabels{"method": "tools/call", "tool": "tasks_create", "outcome": "ok"}, 1)
	s.atLeast(t, "taskwire_grpc_server_handled_total", metricLabels{"method": "/taskwire.v1.BoardService/CreateTask", "code": "OK"}, 1)
	s.equals(t, "taskwire_mcp_sse_streams_open", nil, 0)
	s.equals(t, "taskwire_nats_connected", nil, 1)
	s.equals(t, "taskwire_db_up", nil, 1)
	noPublicMetrics(t, base)
}

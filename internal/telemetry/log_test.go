package telemetry_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/internal/telemetry"
)

// syncBuffer is a log destination the worker and front door may write to
// at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The task text of the sequence: none of it may reach an info record.
var secrets = []string{
	"Quarterly layoffs plan", "salary bands attached", "Board meeting in Zurich",
	"Renamed: acquisition of Globex", "zurich acquisition",
}

// TestLogsCarryCallNotSecrets runs a day's calls through a front door and
// worker logging JSON at info level, then reads every record: none holds
// the bearer token or task text, each call's records carry its request
// id, tenant and tool, and the worker's records name the front door's
// request id.
func TestLogsCarryCallNotSecrets(t *testing.T) {
	var out syncBuffer
	log := telemetry.NewLogger(&out, slog.LevelInfo)
	e := newEnv(t, newTelemetry(t, telemetry.Config{}), log)

	e.call(t, "server/discover", nil, nil)
	e.call(t, "tools/list", nil, nil)
	e.tool(t, "tasks_create", map[string]any{"title": secrets[0], "note": secrets[1]}, nil)
	e.tool(t, "tasks_get", map[string]any{"ref": "T-1"}, nil)
	e.tool(t, "comments_add", map[string]any{"ref": "T-1", "body": secrets[2]}, nil)
	e.tool(t, "tasks_update", map[string]any{"ref": "T-1", "title": secrets[3]}, nil)
	e.tool(t, "tasks_search", map[string]any{"query": secrets[4]}, nil)
	e.call(t, "tools/call", map[string]any{"name": "tasks_create", "arguments": map[string]any{"title": secrets[0], "lane": 42}}, nil) // invalid arguments
	e.tool(t, "tasks_get", map[string]any{"ref": "T-999"}, nil)                                                                        // a tool error

	records := parseRecords(t, out.String())
	if len(records) < 10 {
		t.Fatalf("%d log records, want one per request and per worker call at least:\n%s", len(records), out.String())
	}
	frontIDs := map[string]string{} // request id → tool, from the front door
	for _, r := range records {
		line := r["_line"].(string)
		for _, s := range append([]string{testToken, "secret-token-value"}, secrets...) {
			if strings.Contains(strings.ToLower(line), strings.ToLower(s)) {
				t.Errorf("log record holds %q: %s", s, line)
			}
		}
		if r["msg"] == "mcp request" {
			frontIDs[str(r["request_id"])] = str(r["tool"])
		}
	}
	for _, r := range records {
		if r["msg"] != "rpc" {
			continue
		}
		id, tool := str(r["request_id"]), str(r["tool"])
		switch {
		case id == "":
			t.Errorf("worker record without request_id: %s", r["_line"])
		case str(r["tenant"]) != "acme":
			t.Errorf("worker record without tenant acme: %s", r["_line"])
		case tool != "" && frontIDs[id] != tool:
			t.Errorf("worker record of %s has request_id %s, whose front door record names tool %q", tool, id, frontIDs[id])
		}
	}
	for id, tool := range frontIDs {
		if id == "" {
			t.Errorf("front door record without request_id (tool %q)", tool)
		}
	}
}

// TestHeaderTraceReachesWorkerUnrecorded: with no span recorded (no
// exporter), the trace context of the HTTP request's traceparent header
// still crosses gRPC to the worker, whose record of the call carries its
// trace id; a request without one gives the worker none.
func TestHeaderTraceReachesWorkerUnrecorded(t *testing.T) {
	var out syncBuffer
	e := newEnv(t, newTelemetry(t, telemetry.Config{}), telemetry.NewLogger(&out, slog.LevelInfo))
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	hdr := http.Header{"Traceparent": {"00-" + traceID + "-b7ad6b7169203331-01"}}
	if rec := e.callWith(t, hdr, "tools/call", map[string]any{"name": "tasks_list", "arguments": map[string]any{}}, nil); rec.Code != http.StatusOK {
		t.Fatalf("tasks_list = %d %s", rec.Code, rec.Body)
	}
	e.tool(t, "whoami", map[string]any{}, nil)
	var traced, untraced int
	for _, r := range parseRecords(t, out.String()) {
		if r["msg"] != "rpc" {
			continue
		}
		switch str(r["trace_id"]) {
		case traceID:
			traced++
		case "":
			untraced++
		default:
			t.Errorf("worker record with a trace id no request sent: %s", r["_line"])
		}
	}
	if traced != 1 || untraced != 1 {
		t.Errorf("worker records: %d with the header's trace id, %d without; want 1 and 1:\n%s", traced, untraced, out.String())
	}
}

// parseRecords decodes JSON lines, keeping each line under "_line".
func parseRecords(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, sc.Text())
		}
		r["_line"] = sc.Text()
		out = append(out, r)
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/progress"
)

var importArgs = json.RawMessage(`{"tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}`)

const importText = "Imported 3 tasks: T-1 to T-3"

// importBoard's ImportTasks reports three rising steps and imports three
// tasks. It passes onCall the progress subjects its call's metadata names.
func importBoard(onCall func(subjects []string)) *testBoard {
	return &testBoard{importTasks: func(ctx context.Context, req *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		onCall(md.Get(progress.MDSubject))
		for i := 1; i <= 3; i++ {
			progress.Report(ctx, float64(i), 3, fmt.Sprintf("imported %d of 3", i))
		}
		return &taskwirev1.ImportTasksResponse{Imported: 3, Refs: []string{"T-1", "T-2", "T-3"}}, nil
	}}
}

// subjectLog keeps the subjects each call named.
type subjectLog struct {
	mu    sync.Mutex
	calls [][]string
}

func (l *subjectLog) add(subjects []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, subjects)
}

func (l *subjectLog) get() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// report is one call of a progress.Reporter.
type report struct {
	Done, Total float64
	Message     string
}

// reportLog is a progress.Reporter keeping what it was given.
type reportLog struct {
	mu      sync.Mutex
	reports []report
	before  func() // runs before each report is kept; may block
}

func (l *reportLog) report(done, total float64, message string) {
	if l.before != nil {
		l.before()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reports = append(l.reports, report{done, total, message})
}

func (l *reportLog) get() []report {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reports)
}

// watchedConn closes returned when its first Invoke returns, that is when
// the worker's response (and trailer) is in.
type watchedConn struct {
	grpc.ClientConnInterface
	once     sync.Once
	returned chan struct{}
}

func (c *watchedConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	err := c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
	c.once.Do(func() { close(c.returned) })
	return err
}

func TestProgressRelayedBeforeResult(t *testing.T) {
	url := natstest.Start(t)
	var subjects subjectLog
	conn := &watchedConn{ClientConnInterface: startWorker(t, importBoard(subjects.add), natstest.Connect(t, url)), returned: make(chan struct{})}
	fd := natstest.Connect(t, url)
	b := newBackend(t, conn, Config{NATS: fd, ID: "fd-test", ProgressGrace: 10 * time.Second})
	// Every event reaches the reporter only after the response is in, so
	// the result has all three only if CallTool waits for the events the
	// trailer counts.
	reports := &reportLog{before: func() { <-conn.returned }}

	res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs}, reports.report)
	got := reports.get() // before anything else can arrive
	if err != nil {
		t.Fatalf("CallTool(tasks_import) = %v", err)
	}
	if text := resultText(t, res); res.IsError || text != importText {
		t.Errorf("CallTool(tasks_import) = isError %v, %q; want %q", res.IsError, text, importText)
	}
	want := []report{{1, 3, "imported 1 of 3"}, {2, 3, "imported 2 of 3"}, {3, 3, "imported 3 of 3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress reported by the time CallTool returned (-want +got):\n%s", diff)
	}
	calls := subjects.get()
	if len(calls) != 1 || len(calls[0]) != 1 || !strings.HasPrefix(calls[0][0], progress.SubjectPrefix+"fd-test.") {
		t.Errorf("progress subjects seen by the board = %q, want one starting with %q", calls, progress.SubjectPrefix+"fd-test.")
	}
	if n := fd.NumSubscriptions(); n != 0 {
		t.Errorf("NATS subscriptions after the call = %d, want 0", n)
	}
}

func TestProgressSubjectsDifferPerCall(t *testing.T) {
	url := natstest.Start(t)
	var subjects subjectLog
	b := newBackend(t, startWorker(t, importBoard(subjects.add), natstest.Connect(t, url)), Config{NATS: natstest.Connect(t, url), ID: "fd-test"})
	for range 2 {
		if _, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs}, (&reportLog{}).report); err != nil {
			t.Fatalf("CallTool(tasks_import) = %v", err)
		}
	}
	calls := subjects.get()
	if len(calls) != 2 || len(calls[0]) != 1 || len(calls[1]) != 1 || calls[0][0] == calls[1][0] {
		t.Errorf("progress subjects of two calls = %q, want one each, different", calls)
	}
}

func TestNoProgressWithoutReporter(t *testing.T) {
	url := natstest.Start(t)
	fd := natstest.Connect(t, url)
	var subjects subjectLog
	var subsDuringCall atomic.Int32
	board := importBoard(func(s []string) {
		subjects.add(s)
		subsDuringCall.Store(int32(fd.NumSubscriptions()))
	})
	b := newBackend(t, startWorker(t, board, natstest.Connect(t, url)), Config{NATS: fd, ID: "fd-test"})

	res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs}, nil)
	if err != nil {
		t.Fatalf("CallTool(tasks_import) without a reporter = %v", err)
	}
	if text := resultText(t, res); res.IsError || text != importText {
		t.Errorf("CallTool(tasks_import) without a reporter = isError %v, %q; want %q", res.IsError, text, importText)
	}
	if diff := cmp.Diff([][]string{nil}, subjects.get()); diff != "" {
		t.Errorf("progress subjects seen by the board without a reporter (-want +got):\n%s", diff)
	}
	if n := subsDuringCall.Load(); n != 0 {
		t.Errorf("NATS subscriptions during a call without a reporter = %d, want 0", n)
	}
}

func TestProgressWithoutNATS(t *testing.T) {
	var subjects subjectLog
	b := newBackend(t, startWorker(t, importBoard(subjects.add), nil), Config{})
	reports := &reportLog{}
	res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs}, reports.report)
	if err != nil {
		t.Fatalf("CallTool(tasks_import) without NATS = %v", err)
	}
	if text := resultText(t, res); res.IsError || text != importText {
		t.Errorf("CallTool(tasks_import) without NATS = isError %v, %q; want %q", res.IsError, text, importText)
	}
	if got := reports.get(); len(got) != 0 {
		t.Errorf("progress without NATS = %v, want none", got)
	}
	if diff := cmp.Diff([][]string{nil}, subjects.get()); diff != "" {
		t.Errorf("progress subjects seen by the board without NATS (-want +got):\n%s", diff)
	}
}

// TestProgressNATSClosed: progress is best effort, so a front door whose
// NATS connection is gone still runs the tool, without progress, and
// tells the client so: in a progress notification, and as a warning when
// the client asked for log messages at that level (MCP allows no message
// otherwise). The metric counts it.
func TestProgressNATSClosed(t *testing.T) {
	url := natstest.Start(t)
	var subjects subjectLog
	fd := natstest.Connect(t, url)
	fd.Close()
	var failures []string
	b := newBackend(t, startWorker(t, importBoard(subjects.add), natstest.Connect(t, url)),
		Config{NATS: fd, ID: "fd-test", RelayFailed: func(reason string) { failures = append(failures, reason) }})
	reports := &reportLog{}
	var warnings, quiet []string
	call := &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs, LogLevel: "info",
		Log: func(level, text string) { warnings = append(warnings, level+": "+text) }}
	res, err := b.CallTool(context.Background(), writer, call, reports.report)
	if _, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs, LogLevel: "error",
		Log: func(level, text string) { quiet = append(quiet, level+": "+text) }}, nil); err != nil {
		t.Fatal(err)
	}
	told := relayUnreachable.text()
	if diff := cmp.Diff([]report{{0, 0, told}}, reports.get()); diff != "" {
		t.Errorf("progress with NATS closed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"warning: " + told}, warnings); diff != "" {
		t.Errorf("log messages at info with NATS closed (-want +got):\n%s", diff)
	}
	if len(quiet) != 0 {
		t.Errorf("log messages at error with NATS closed = %q, want none (a warning is below error)", quiet)
	}
	if diff := cmp.Diff([]string{"unreachable", "unreachable"}, failures); diff != "" {
		t.Errorf("relay failures counted (-want +got):\n%s", diff)
	}
	if err != nil {
		t.Fatalf("CallTool(tasks_import) with NATS closed = %v, want the result without progress", err)
	}
	if text := resultText(t, res); res.IsError || text != importText {
		t.Errorf("CallTool(tasks_import) with NATS closed = isError %v, %q; want %q", res.IsError, text, importText)
	}
	if diff := cmp.Diff([][]string{nil, nil}, subjects.get()); diff != "" {
		t.Errorf("progress subjects seen by the board with NATS closed (-want +got):\n%s", diff)
	}
}

// TestLostProgressWaitsOnlyGrace: events the trailer counts but NATS never
// delivers (here the worker publishes to another server) hold the result
// back for ProgressGrace, no longer.
func TestLostProgressWaitsOnlyGrace(t *testing.T) {
	const grace = 100 * time.Millisecond
	var subjects subjectLog
	workerNATS := natstest.Connect(t, natstest.Start(t))
	b := newBackend(t, startWorker(t, importBoard(subjects.add), workerNATS),
		Config{NATS: natstest.Connect(t, natstest.Start(t)), ID: "fd-test", ProgressGrace: grace})
	reports := &reportLog{}

	start := time.Now()
	res, err := b.CallTool(context.Background(), writer, &mcp.ToolCall{Name: "tasks_import", Arguments: importArgs}, reports.report)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("CallTool(tasks_import) with progress lost = %v", err)
	}
	if text := resultText(t, res); res.IsError || text != importText {
		t.Errorf("CallTool(tasks_import) with progress lost = isError %v, %q; want %q", res.IsError, text, importText)
	}
	if diff := cmp.Diff([]report{{1, 0, relayLate.text()}}, reports.get()); diff != "" {
		t.Errorf("progress relayed from another NATS server (-want +got):\n%s", diff)
	}
	if took < grace || took > 10*time.Second {
		t.Errorf("CallTool(tasks_import) with progress lost took %v, want at least the grace %v and not much more", took, grace)
	}
}

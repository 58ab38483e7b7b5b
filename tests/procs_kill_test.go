package tests

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// killUnderLoad SIGKILLs victim while four clients import tasks through
// the front door without pause: every call either succeeds or fails with
// an error telling the client to try again, the front door stays ready,
// and each client's calls after the kill succeed on the other worker.
func (d *deployment) killUnderLoad(t *testing.T, token string, victim *workerProc) {
	t.Helper()
	var (
		ok, retried atomic.Int32
		killed      atomic.Bool
		wg          sync.WaitGroup
	)
	for c := range 4 {
		cs := d.client(t, token, nil)
		wg.Go(func() {
			for i, streak := 0, 0; streak < 3; i++ {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_import", Arguments: importArgs(fmt.Sprintf("Load %d.%d", c, i), 20)})
				switch {
				case err == nil && !res.IsError:
					ok.Add(1)
					if killed.Load() {
						streak++
					}
				case retriable(res, err):
					retried.Add(1)
					streak = 0
				default:
					t.Errorf("a call while a worker was killed failed without saying to try again: %v %s", err, textOf(res))
					return
				}
			}
		})
	}
	poll.Until(t, 20*time.Second, "calls to succeed before the kill", func() bool { return ok.Load() >= 8 })
	victim.Signal(t, syscall.SIGKILL)
	victim.Wait(t, 10*time.Second)
	killed.Store(true)
	wg.Wait()
	if got := nodetest.Probe(d.url("/readyz")); got != http.StatusOK {
		t.Errorf("front door /readyz with one worker left = %d, want 200", got)
	}
	t.Logf("%d calls succeeded, %d failed retriably around the kill", ok.Load(), retried.Load())
}

// drainMidCall SIGTERMs the last worker once its import reported progress:
// the import still completes, the worker exits 0, its readiness turned
// 503 meanwhile, and the front door, with no worker left, turns unready
// and answers the next call with an error saying to try again.
func (d *deployment) drainMidCall(t *testing.T, token string, last *workerProc) {
	t.Helper()
	var once sync.Once
	draining := make(chan int, 1)
	cs := d.client(t, token, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			once.Do(func() {
				last.Signal(t, syscall.SIGTERM)
				draining <- firstChange(func() int { return nodetest.Probe("http://" + last.http + "/readyz") }, http.StatusOK)
			})
		},
	})
	params := &mcp.CallToolParams{Name: "tasks_import", Arguments: importArgs("Drained", 200)}
	params.SetProgressToken("drain")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("tasks_import in flight at SIGTERM = %v %s, want it to finish", err, textOf(res))
	}
	if got := len(nodetest.Structured(t, res)["refs"].([]any)); got != 200 {
		t.Errorf("tasks_import in flight at SIGTERM created %d tasks, want 200", got)
	}
	if err := last.Wait(t, 15*time.Second); err != nil {
		t.Errorf("%s after SIGTERM: %v, want exit 0", last.Name, err)
	}
	if got := <-draining; got != http.StatusServiceUnavailable {
		t.Errorf("%s /readyz while draining = %d, want 503", last.Name, got)
	}
	poll.Until(t, 10*time.Second, "the front door to turn unready", func() bool { return nodetest.Probe(d.url("/readyz")) == http.StatusServiceUnavailable })
	res, err = d.client(t, token, nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_list"})
	if !retriable(res, err) {
		t.Errorf("tasks_list with no worker = %v %s, want an error saying to try again", err, textOf(res))
	}
}

// firstChange calls get until it returns something other than was, and
// returns that (0 when it never changed within 10 seconds). Unlike
// poll.Until it fails nothing: it runs in the client's progress handler,
// off the test's goroutine, and hands what it saw to the test.
func firstChange(get func() int, was int) int {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got := get(); got != was {
			return got
		}
		time.Sleep(time.Millisecond)
	}
	return 0
}

// textOf is the text of a result, if any.
func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return nodetest.Text(res)
}

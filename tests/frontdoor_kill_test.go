package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestFrontDoorKilled runs a worker behind two front doors, as separate
// processes, and SIGKILLs the first front door (replaced after each kill,
// as an orchestrator does) while clients depend on it:
//   - a tasks_import streaming progress on the wire, with an idempotency
//     key, a subscriptions/listen stream, and a legacy session of each
//     older revision: both streams end with an error, and every event
//     they delivered is a whole JSON-RPC message; the import retried with
//     its key at the other front door makes each task once and returns
//     one result; the legacy sessions go on there;
//   - the go-sdk client's import, in a 2025-11-25 session behind a
//     balancer that fails over: the call fails at once, and the session
//     goes on at the other front door;
//   - a tasks_create with a key, cut off as soon as it is sent, and one
//     cut off once the worker committed it, its answer lost: either way
//     its retries at the other front door return the same one task.
//
// Every import cut off ends in the worker, cancelled and rolled back or
// completed, all of it committed or none, and no call is left running.
func TestFrontDoorKilled(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			k := startFrontKill(t, b)
			k.streamsCut(t)
			k.replaceFront(t)
			k.sdkCut(t)
			k.replaceFront(t)
			k.createCut(t, "Cut create once sent", false)
			k.replaceFront(t)
			k.createCut(t, "Cut create once committed", true)
		})
	}
}

// frontKill is the deployment of TestFrontDoorKilled: d's front door is
// the one killed, other the address of the one that stays.
type frontKill struct {
	d     *deployment
	w     *workerProc
	other string
	token string
	idle  float64 // the worker's calls in flight with only the other front door connected
}

// startFrontKill starts a deployment of b: a worker, the front door that
// stays, and then d's front door, and the token of the first tenant's
// owner, not used yet.
func startFrontKill(t *testing.T, b storetest.Backend) *frontKill {
	t.Helper()
	d := newDeployment(t, b)
	nodetest.RunProc(t, d.dir, "migrate", "--db", d.db)
	w := d.startWorker(t, "worker", "127.0.0.1:0")
	k := &frontKill{d: d, w: w, other: d.startFrontAt(t, "front door 2", w.grpc)}
	k.idle = w.idleCalls(t)
	d.startFront(t, w.grpc)
	k.token = d.ownerToken(t)
	return k
}

// replaceFront starts d's front door again after a kill, as an
// orchestrator does.
func (k *frontKill) replaceFront(t *testing.T) {
	t.Helper()
	k.d.startFront(t, k.w.grpc)
}

// killFront SIGKILLs d's front door and returns when it was sent.
func (k *frontKill) killFront(t *testing.T) time.Time {
	t.Helper()
	at := time.Now()
	k.d.front.Signal(t, syscall.SIGKILL)
	k.d.front.Wait(t, 10*time.Second)
	return at
}

// The request ids (X-Request-Id) of the imports streamsCut and sdkCut cut
// off, by which the worker's log names them.
const (
	wireImportID = "cut-wire-import"
	sdkImportID  = "cut-sdk-import"
)

// streamsCut kills the front door while an import streams its progress
// and a listen stream is open there, after two legacy sessions were
// opened there.
func (k *frontKill) streamsCut(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sessions := map[string]string{}
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		sessions[version] = legacyOpen(t, k.token, k.d.frontAddr, version)
	}
	listen := newSSEReader(listenRequest(t, ctx, k.d.url("/api/mcp"), k.token))
	if first := listen.expect(t, "the listen stream"); first.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("the listen stream began with %+v, want its acknowledgement", first)
	}
	imp := openStream(t, ctx, k.d.frontAddr, k.token, wireImportID, "tasks_import", slowImport("Cut import", "key-1"))
	if first := imp.expect(t, "the import's stream"); first.Method != "notifications/progress" {
		t.Fatalf("the import's stream began with %+v, want progress", first)
	}
	killed := k.killFront(t)
	imp.drain(t, "the import's stream")
	listen.drain(t, "the listen stream")

	refs := k.retryImport(t, killed)
	k.checkImportEnded(t, killed, wireImportID)
	if again := k.importRefs(t); strings.Join(again, ",") != strings.Join(refs, ",") {
		t.Errorf("a second retry of the import returned %d refs %v…, want the first result's %d", len(again), again[:min(3, len(again))], len(refs))
	}
	if n := len(k.refsInDB(t, task.TitleHasPrefix("Cut import "))); n != slowImportSize {
		t.Errorf("tasks of the import in the database = %d, want %d: the import, its cut-off run and its retries made each task once", n, slowImportSize)
	}
	k.checkNoCallLeft(t)
	for version, session := range sessions {
		res := legacyCall(t, k.token, k.other, version, session, "tasks_list", map[string]any{"limit": 1})
		if nodetest.IsError(res) {
			t.Errorf("tasks_list in the %s session opened at the killed front door, at the other = %v, want a result", version, res)
		}
	}
}

// sdkCall is a call of the go-sdk client in flight.
type sdkCall struct {
	ended chan error
}

// sdkCut kills the front door while the go-sdk client, in a 2025-11-25
// session with its standalone stream open, as it is set up by default,
// has an import streaming progress through a balancer that fails over to
// the other front door. The call fails at once instead of waiting, the
// worker ends the import (all of it or none is committed) and no call is
// left running in it, and the session goes on at the other front door.
func (k *frontKill) sdkCut(t *testing.T) {
	t.Helper()
	progressed := make(chan struct{}, 1)
	balancer := failover(k.d.frontAddr, k.other)
	t.Cleanup(balancer.CloseIdleConnections)
	rec := nodetest.NewWireRecorder(t, k.token, "2025-11-25", headerTransport{"X-Request-Id", sdkImportID, balancer})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "taskwire-kill", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: k.d.url("/api/mcp"), HTTPClient: &http.Client{Transport: rec}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	call := startSDKImport(cs)
	select {
	case <-progressed:
	case err := <-call.ended:
		t.Fatalf("the go-sdk client's import ended before any progress: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("the go-sdk client's import reported no progress in 15 s")
	}
	killed := k.killFront(t)
	call.check(t, killed)
	k.checkAllOrNone(t, k.checkImportEnded(t, killed, sdkImportID), "Cut sdk import ")
	k.checkNoCallLeft(t)
	nodetest.CallOK(t, cs, "tasks_list", map[string]any{"limit": 1})
}

// startSDKImport starts a tasks_import reporting progress with cs.
func startSDKImport(cs *mcp.ClientSession) *sdkCall {
	params := &mcp.CallToolParams{Name: "tasks_import", Arguments: slowImport("Cut sdk import", "")}
	params.SetProgressToken("sdk")
	call := &sdkCall{ended: make(chan error, 1)}
	go func() {
		res, err := cs.CallTool(context.Background(), params)
		if err == nil && res.IsError {
			err = fmt.Errorf("isError: %s", nodetest.Text(res))
		}
		call.ended <- err
	}()
	return call
}

// check checks that the go-sdk client's call, cut off at killed, ended
// in an error within seconds rather than waiting for an answer that
// cannot come.
func (c *sdkCall) check(t *testing.T, killed time.Time) {
	t.Helper()
	select {
	case err := <-c.ended:
		t.Logf("kill → the go-sdk client's call ended: %v, with %v", time.Since(killed).Round(time.Millisecond), err)
	case <-time.After(10 * time.Second):
		t.Errorf("the go-sdk client's call was still waiting 10 s after its front door was killed, want it to end")
	}
}

// checkAllOrNone checks that the database holds all of an import the
// worker ended with code, or none of it when code is not OK.
func (k *frontKill) checkAllOrNone(t *testing.T, code any, prefix string) {
	t.Helper()
	want := 0
	if code == "OK" {
		want = slowImportSize
	}
	if n := len(k.refsInDB(t, task.TitleHasPrefix(prefix))); n != want {
		t.Errorf("tasks of the import the worker ended %v = %d, want %d", code, n, want)
	}
}

// retryImport retries the import with its key at the other front door
// until it succeeds, checks that it made every task once (a partial
// commit of the cut-off run would show as drafts skipped as duplicates),
// and returns its refs.
func (k *frontKill) retryImport(t *testing.T, killed time.Time) []string {
	t.Helper()
	var res map[string]any
	poll.Until(t, 10*time.Second, "the import retried at the other front door to succeed", func() bool {
		res = k.callAt(t, k.other, "tasks_import", slowImport("Cut import", "key-1"))
		return !nodetest.IsError(res)
	})
	t.Logf("kill → the import retried with its key at the other front door succeeded: %v", time.Since(killed).Round(time.Millisecond))
	out := structuredOf(t, res)
	if skipped, _ := out["skipped"].([]any); out["imported"] != float64(slowImportSize) || len(skipped) > 0 {
		t.Errorf("the retried import imported %v, skipped %v; want all %d and none skipped", out["imported"], out["skipped"], slowImportSize)
	}
	return refsOf(out)
}

// importRefs calls the import once more with its key at the other front
// door and returns its refs.
func (k *frontKill) importRefs(t *testing.T) []string {
	t.Helper()
	res := k.callAt(t, k.other, "tasks_import", slowImport("Cut import", "key-1"))
	if nodetest.IsError(res) {
		t.Fatalf("the import retried again = %v, want its first result", res)
	}
	return refsOf(structuredOf(t, res))
}

// checkImportEnded checks that the worker ended the import with request
// id that the killed front door had started, cancelled or completed, and
// returns its code.
func (k *frontKill) checkImportEnded(t *testing.T, killed time.Time, id string) any {
	t.Helper()
	var rec map[string]any
	poll.Until(t, 10*time.Second, "the worker to end the cut-off import "+id, func() bool {
		rec = k.w.call("/taskwire.v1.BoardService/ImportTasks", id)
		return rec != nil
	})
	ended, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(rec["time"]))
	ran, _ := rec["duration"].(float64)
	t.Logf("kill → the worker ended %s as %v: %v (it ran %v)", id, rec["code"], ended.Sub(killed).Round(time.Millisecond), time.Duration(ran).Round(time.Millisecond))
	if code := rec["code"]; code != "Canceled" && code != "OK" {
		t.Errorf("the worker ended the cut-off import %s with %v, want Canceled (or OK, had it finished)", id, code)
	}
	return rec["code"]
}

// checkNoCallLeft waits until the worker has no call in flight but the
// other front door's health watch.
func (k *frontKill) checkNoCallLeft(t *testing.T) {
	t.Helper()
	poll.Until(t, 10*time.Second, "the worker to have no call of the killed front door running", func() bool {
		return k.w.inFlight(t) == k.idle
	})
}

// createCut cuts off a tasks_create titled title with an idempotency
// key by killing the front door: as soon as the request is sent, or, when
// committed, once the worker committed it, its answer lost on the way (a
// proxy drops it). Either way its retries at the other front door return
// one task, the same each time, and the database holds that one.
func (k *frontKill) createCut(t *testing.T, title string, committed bool) {
	t.Helper()
	args := map[string]any{"title": title, "idempotency_key": title}
	id := strings.ReplaceAll(title, " ", "-")
	sent, answered := make(chan struct{}), make(chan map[string]any, 1)
	go func() {
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { close(sent) }}
		ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(context.Background(), trace), 15*time.Second)
		defer cancel()
		addr := k.d.frontAddr
		if committed {
			addr = deafProxy(t, addr)
		}
		answered <- tryCall(ctx, addr, k.token, id, "tasks_create", args)
	}()
	<-sent
	if committed {
		poll.Until(t, 10*time.Second, "the worker to commit the tasks_create", func() bool {
			rec := k.w.call("/taskwire.v1.BoardService/CreateTask", id)
			return rec != nil && rec["code"] == "OK"
		})
	}
	killed := k.killFront(t)
	first := <-answered
	ref := k.retryCreate(t, killed, args)
	if first != nil && createdRef(t, first) != ref {
		t.Errorf("the cut-off tasks_create answered %s, its retry %s; want one task", createdRef(t, first), ref)
	}
	if again := createdRef(t, k.callAt(t, k.other, "tasks_create", args)); again != ref {
		t.Errorf("tasks_create retried twice = %s, then %s; want the first result each time", ref, again)
	}
	if got := k.refsInDB(t, task.Title(title)); len(got) != 1 || got[0] != ref {
		t.Errorf("tasks titled %q in the database = %v, want the one its retries returned, %s", title, got, ref)
	}
	t.Logf("%q: the worker ended the cut-off call as %v (nil: it never reached the worker); the client had an answer: %v",
		title, k.w.call("/taskwire.v1.BoardService/CreateTask", id)["code"], first != nil)
}

// retryCreate retries a tasks_create with args at the other front door
// until it succeeds, and returns the ref of its task.
func (k *frontKill) retryCreate(t *testing.T, killed time.Time, args map[string]any) string {
	t.Helper()
	var res map[string]any
	poll.Until(t, 10*time.Second, "tasks_create retried at the other front door to succeed", func() bool {
		res = k.callAt(t, k.other, "tasks_create", args)
		return !nodetest.IsError(res)
	})
	t.Logf("kill → %q retried with its key at the other front door succeeded: %v", args["title"], time.Since(killed).Round(time.Millisecond))
	return createdRef(t, res)
}

// callAt calls name with args at the front door at addr, failing t when
// no answer comes.
func (k *frontKill) callAt(t *testing.T, addr, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	answer := tryCall(ctx, addr, k.token, "", name, args)
	if answer == nil {
		t.Fatalf("%s at %s got no answer", name, addr)
	}
	return answer
}

// refsInDB are the refs of the tasks matching where in the deployment's
// database.
func (k *frontKill) refsInDB(t *testing.T, where ...predicate.Task) []string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Connect(ctx, k.d.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tasks, err := db.Client.Task.Query().Where(where...).All(privacy.DecisionContext(ctx, privacy.Allow))
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, task := range tasks {
		refs = append(refs, fmt.Sprintf("T-%d", task.Number))
	}
	return refs
}

// slowImportSize is how many tasks slowImport holds: the most one import
// takes.
const slowImportSize = 200

// slowImport is a tasks_import of the largest size, of tasks titled
// prefix and a number, each with a long note so that the import takes a
// while, carrying key unless it is "".
func slowImport(prefix, key string) map[string]any {
	args := importArgs(prefix, slowImportSize)
	for _, d := range args["tasks"].([]map[string]any) {
		d["note"] = strings.Repeat("A long note of an imported task, written to take the import a while. ", 50)[:2800]
	}
	if key != "" {
		args["idempotency_key"] = key
	}
	return args
}

// idleCalls is the number of calls the worker has in flight once it
// settles: the health watches of the front doors connected to it.
func (w *workerProc) idleCalls(t *testing.T) float64 {
	t.Helper()
	var n float64
	poll.Until(t, 10*time.Second, "a front door's health watch of "+w.Name, func() bool {
		n = w.inFlight(t)
		return n >= 1
	})
	return n
}

// inFlight is the number of calls the worker has in flight.
func (w *workerProc) inFlight(t *testing.T) float64 {
	t.Helper()
	n, _ := scrapeMetrics(t, "http://"+w.http+"/metrics").value("taskwire_grpc_server_in_flight", nil)
	return n
}

// call is the worker's log record of the call of method with request
// id, nil before it has ended.
func (w *workerProc) call(method, id string) map[string]any {
	for _, rec := range w.callRecords(method) {
		if rec["request_id"] == id {
			return rec
		}
	}
	return nil
}

// callRecords are the worker's log records of the calls of method it
// ended, in order.
func (w *workerProc) callRecords(method string) []map[string]any {
	var recs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(w.Stderr.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "rpc" && rec["method"] == method {
			recs = append(recs, rec)
		}
	}
	return recs
}

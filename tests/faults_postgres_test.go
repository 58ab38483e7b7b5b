package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/pgtest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// unreachableMsg is what a worker logs once when an outage of its
// database begins.
const unreachableMsg = "worker: the database is unreachable; calls are answered as unavailable until it answers again"

// pgOutage is how long the database stays down: a pace of the scenario
// (a crashed server restarted by its supervisor), not a wait.
const pgOutage = 3 * time.Second

// TestPostgresCrash runs the production shape on a PostgreSQL cluster of
// the test's own (`taskwire migrate`, two workers, two front doors),
// drives eight callers creating tasks (and listing tools now and then)
// through both front doors, crashes the database (pg_ctl stop -m
// immediate) and starts it again 3 s later. It checks that the outage is
// named and retryable: no -32603 ever; every failure is the unavailable
// tool result, or for tools/list a 503 with Retry-After and
// data.retryAfterMs; no call hangs; each worker turns unready during the
// outage and ready soon after, logging it once and counting it once;
// every create acknowledged is in the database, and any other there is
// one answered unavailable (see checkCreates); and calls succeed again
// through both front doors.
func TestPostgresCrash(t *testing.T) {
	pg := pgtest.Start(t)
	d := newDeploymentOn(t, pg.URL(), natstest.Start(t))
	nodetest.RunProc(t, d.dir, "migrate", "--db", d.db)
	w1, w2 := d.startWorker(t, "worker 1", "127.0.0.1:0"), d.startWorker(t, "worker 2", "127.0.0.1:0")
	workers := []*workerProc{w1, w2}
	d.startFront(t, w1.grpc+","+w2.grpc)
	fronts := []string{d.frontAddr, d.startFrontAt(t, "front door 2", w1.grpc+","+w2.grpc)}
	token := d.ownerToken(t)

	load := &faultLoad{t: t, token: token, fronts: fronts}
	load.start(8)
	t.Cleanup(load.stop)
	poll.Until(t, 30*time.Second, "calls to succeed before the crash", func() bool { return load.ok.Load() >= 40 })

	pg.Crash(t)
	crashed := time.Now()
	load.outage.Store(true)
	for _, w := range workers {
		poll.Until(t, 10*time.Second, w.Name+" to turn unready", func() bool { return nodetest.Probe("http://"+w.http+"/readyz") == http.StatusServiceUnavailable })
	}
	t.Logf("both workers unready %v after the crash", time.Since(crashed).Round(time.Millisecond))
	time.Sleep(pgOutage - time.Since(crashed))
	pg.Start(t)
	back := time.Now()
	load.outage.Store(false)
	for _, w := range workers {
		poll.Until(t, 10*time.Second, w.Name+" to be ready again", func() bool { return nodetest.Probe("http://"+w.http+"/readyz") == http.StatusOK })
		t.Logf("%s ready %v after PostgreSQL accepted connections", w.Name, time.Since(back).Round(time.Millisecond))
	}
	load.okSince(back, fronts)
	t.Logf("calls succeeding on both front doors %v after PostgreSQL accepted connections", time.Since(back).Round(time.Millisecond))
	load.stop()

	load.check(back)
	for _, w := range workers {
		checkOneOutage(t, w)
	}
	checkCreates(t, d.db, load)
}

// faultLoad is the callers of TestPostgresCrash and what they were told.
type faultLoad struct {
	t      *testing.T
	token  string
	fronts []string

	outage atomic.Bool // the database is down (as the test knows it)
	ok     atomic.Int64
	wg     sync.WaitGroup
	quit   chan struct{}
	once   sync.Once

	mu       sync.Mutex
	acked    map[string]bool      // titles of the creates acknowledged
	unsure   map[string]bool      // titles of the creates answered unavailable
	during   map[string]int       // what calls were answered while it was down, by kind
	after    []string             // failures after the database was back
	lastOK   map[string]time.Time // the last success through each front door
	faults   []string
	unserved int // unavailable answers in all
	longest  time.Duration
	calls    int
}

// start starts n callers, alternating between the front doors.
func (l *faultLoad) start(n int) {
	l.quit = make(chan struct{})
	l.during, l.lastOK = map[string]int{}, map[string]time.Time{}
	l.acked, l.unsure = map[string]bool{}, map[string]bool{}
	for c := range n {
		l.wg.Go(func() { l.run(c, l.fronts[c%len(l.fronts)]) })
	}
}

func (l *faultLoad) stop() {
	l.once.Do(func() { close(l.quit) })
	l.wg.Wait()
}

// run calls through front until stopped: tasks_create, and every fourth
// call tools/list, each with a deadline of its own.
func (l *faultLoad) run(c int, front string) {
	client := &http.Client{Timeout: 20 * time.Second}
	for i := 0; ; i++ {
		select {
		case <-l.quit:
			return
		default:
		}
		title := fmt.Sprintf("Fault %d.%d", c, i)
		method, name, body := "tools/call", "tasks_create", createBody(i, title)
		if i%4 == 3 {
			method, name, body, title = "tools/list", "", listBody(i), ""
		}
		down := l.outage.Load()
		start := time.Now()
		kind := l.call(client, front, method, name, body)
		l.note(front, title, kind, down, time.Since(start))
	}
}

func createBody(id int, title string) string {
	args, _ := json.Marshal(map[string]any{"title": title, "allow_duplicate": true})
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tasks_create","arguments":%s,`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, args)
}

func listBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id)
}

// call makes one request and names its answer: "ok", "unavailable" (the
// tool result, or the 503 of another method, as it should be), or what
// else came.
func (l *faultLoad) call(client *http.Client, front, method, name, body string) string {
	req, _ := http.NewRequest(http.MethodPost, "http://"+front+"/api/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result *struct {
			IsError bool
			Content []struct{ Text string }
		}
		Error *struct {
			Code    int
			Message string
			Data    struct{ RetryAfterMs int64 }
		}
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fmt.Sprintf("%d %s", resp.StatusCode, raw)
	}
	switch {
	case msg.Result != nil && !msg.Result.IsError:
		return "ok"
	case msg.Result != nil && len(msg.Result.Content) == 1 && msg.Result.Content[0].Text == "The board is temporarily unavailable. Try again in a moment.":
		return "unavailable"
	case msg.Error != nil && msg.Error.Code == -31503 && resp.StatusCode == http.StatusServiceUnavailable &&
		resp.Header.Get("Retry-After") != "" && msg.Error.Data.RetryAfterMs > 0:
		return "unavailable"
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, raw)
}

// note records one answer, to a create of title or ("") a tools/list.
func (l *faultLoad) note(front, title, kind string, down bool, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	method := "tools/list"
	if title != "" {
		method = "tools/call"
	}
	l.calls++
	l.longest = max(l.longest, took)
	switch {
	case kind == "ok":
		if title != "" {
			l.ok.Add(1)
			l.acked[title] = true
		}
		l.lastOK[front] = time.Now()
	case kind == "unavailable":
		l.unserved++
		if title != "" {
			l.unsure[title] = true
		}
		if down {
			l.during[method]++
		} else {
			l.after = append(l.after, method)
		}
	default:
		l.faults = append(l.faults, method+": "+kind)
	}
}

// okSince waits until a call succeeds through every front door after t.
func (l *faultLoad) okSince(t time.Time, fronts []string) {
	poll.Until(l.t, 10*time.Second, "calls to succeed on both front doors", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, f := range fronts {
			if !l.lastOK[f].After(t) {
				return false
			}
		}
		return true
	})
}

// check: every answer was a success or the unavailable one, none took
// long.
func (l *faultLoad) check(back time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.t
	if len(l.faults) > 0 {
		t.Errorf("%d of %d answers were neither a success nor the unavailable answer, e.g.:\n  %s",
			len(l.faults), l.calls, strings.Join(l.faults[:min(len(l.faults), 5)], "\n  "))
	}
	if l.during["tools/list"] == 0 {
		t.Errorf("no tools/list was answered 503 while the database was down: the test did not see that path")
	}
	t.Logf("%d calls, %d creates acknowledged; unavailable while down: %v; unavailable after PostgreSQL was back: %d %v; slowest answer %v",
		l.calls, l.ok.Load(), l.during, len(l.after), l.after[:min(len(l.after), 5)], l.longest.Round(time.Millisecond))
}

// checkOneOutage: w logged the outage's beginning once and counted one.
func checkOneOutage(t *testing.T, w *workerProc) {
	t.Helper()
	if n := strings.Count(w.Stderr.String(), `"msg":"`+unreachableMsg+`"`); n != 1 {
		t.Errorf("%s logged %q %d times, want once", w.Name, unreachableMsg, n)
	}
	metrics := scrape(t, "http://"+w.http+"/metrics")
	if !strings.Contains(metrics, "\ntaskwire_db_outages_total 1\n") {
		t.Errorf("%s metrics: taskwire_db_outages_total is not 1:\n%s", w.Name, grepLines(metrics, "taskwire_db_"))
	}
	t.Logf("%s: %s", w.Name, strings.ReplaceAll(grepLines(metrics, "taskwire_db_calls_refused_total "), "\n", " "))
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grepLines(s, prefix string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return strings.Join(out, "\n")
}

// checkCreates: every create acknowledged is in the database, and any
// other there was answered unavailable: a create whose commit reached the
// server as it crashed may have committed though its answer was lost (the
// worker cannot tell), which an idempotency key would make safe to retry.
// Nothing acknowledged is lost, nothing appears that no call made.
func checkCreates(t *testing.T, dsn string, l *faultLoad) {
	t.Helper()
	db, err := store.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	titles, err := db.Client.Task.Query().Where(task.TitleHasPrefix("Fault ")).Select(task.FieldTitle).
		Strings(privacy.DecisionContext(context.Background(), privacy.Allow))
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	var phantom, uncertain []string
	for _, title := range titles {
		stored[title] = true
		switch {
		case l.acked[title]:
		case l.unsure[title]:
			uncertain = append(uncertain, title)
		default:
			phantom = append(phantom, title)
		}
	}
	var lost []string
	for title := range l.acked {
		if !stored[title] {
			lost = append(lost, title)
		}
	}
	if len(lost) > 0 || len(phantom) > 0 {
		t.Errorf("creates acknowledged but not stored: %v; stored but never called: %v", lost, phantom)
	}
	t.Logf("%d tasks stored: %d acknowledged, %d answered unavailable though their commit landed %v", len(titles), len(l.acked), len(uncertain), uncertain)
}

package tests

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// scaleLoad is the mixed load of TestScaleOut: clients that each create a
// task, read it, comment on it, move it and list the board, and now and
// then import a hundred tasks with progress, every call to the other
// front door than the last. It keeps every call and every write, for the
// checks afterwards.
type scaleLoad struct {
	fronts []string // host:port
	token  string
	run    string // in every title, body and key of this run
	hc     *http.Client

	ids     atomic.Int64 // JSON-RPC ids
	stopped atomic.Bool
	wg      sync.WaitGroup

	mu     sync.Mutex
	calls  []callRecord
	writes []*writeRecord
}

// retryFor is how long a client retries a write that failed retriably
// before it gives up: far longer than a lost worker should cost.
const retryFor = 10 * time.Second

// importSize is how many tasks one tasks_import of the load creates.
const importSize = 100

// callRecord is one call of the load.
type callRecord struct {
	client  int
	tool    string
	front   int // index into fronts
	attempt int // 1, or more for the retries of a write
	callResult
}

// writeRecord is one idempotent write and what became of it: the rows it
// must have created (titles, or a comment body), and its result once one
// came back.
type writeRecord struct {
	tool     string
	key      string
	ref      string   // tasks_move, comments_add: the task written to
	titles   []string // tasks_create, tasks_import: the tasks created
	body     string   // comments_add: the comment posted
	attempts int
	ack      map[string]any // nil if never acknowledged
}

func newScaleLoad(fronts []string, token, run string) *scaleLoad {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	return &scaleLoad{fronts: fronts, token: token, run: run, hc: &http.Client{Transport: tr}}
}

// start starts n clients.
func (l *scaleLoad) start(n int) {
	for c := range n {
		cl := &loadClient{l: l, id: c, next: c}
		l.wg.Go(cl.loop)
	}
}

// stop asks the clients to stop after what they are doing and waits.
func (l *scaleLoad) stop() {
	l.stopped.Store(true)
	l.wg.Wait()
	l.hc.CloseIdleConnections()
}

// snapshot returns the calls so far.
func (l *scaleLoad) snapshot() []callRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]callRecord(nil), l.calls...)
}

// loadClient is one client of the load, alternating front doors.
type loadClient struct {
	l    *scaleLoad
	id   int
	next int // the next call's front door, before the modulo
}

func (c *loadClient) loop() {
	for i := 0; !c.l.stopped.Load(); i++ {
		c.iteration(i)
	}
}

// iteration is one round of the client's work on one task of its own, so
// that no two clients write to the same task.
func (c *loadClient) iteration(i int) {
	name := fmt.Sprintf("%s c%d i%d", c.l.run, c.id, i)
	created := c.write(&writeRecord{tool: "tasks_create", titles: []string{"Task " + name}}, map[string]any{"title": "Task " + name, "allow_duplicate": true}, false)
	if created == nil {
		return
	}
	task, _ := created["task"].(map[string]any)
	ref, _ := task["ref"].(string)
	c.call("tasks_get", map[string]any{"ref": ref, "include_comments": true}, "", 1)
	c.write(&writeRecord{tool: "comments_add", ref: ref, body: "Comment " + name}, map[string]any{"ref": ref, "body": "Comment " + name}, false)
	c.write(&writeRecord{tool: "tasks_move", ref: ref}, map[string]any{"ref": ref, "lane": "doing"}, false)
	c.call("tasks_list", map[string]any{"limit": 20}, "", 1)
	if i%3 == 1 {
		drafts, titles := make([]map[string]any, importSize), make([]string, importSize)
		for k := range drafts {
			titles[k] = fmt.Sprintf("Import %s n%d", name, k+1)
			drafts[k] = map[string]any{"title": titles[k]}
		}
		c.write(&writeRecord{tool: "tasks_import", titles: titles}, map[string]any{"tasks": drafts}, true)
	}
}

// write makes the write w with args and a fresh idempotency key, retrying
// the same write with the same key while it fails retriably, for up to
// retryFor. It returns the result, or nil when none came back.
func (c *loadClient) write(w *writeRecord, args map[string]any, withProgress bool) map[string]any {
	w.key = fmt.Sprintf("%s-%s-c%d-%d", c.l.run, w.tool, c.id, c.l.ids.Add(1))
	args["idempotency_key"] = w.key
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, w)
	c.l.mu.Unlock()
	deadline := time.Now().Add(retryFor)
	for {
		w.attempts++
		token := ""
		if withProgress {
			token = fmt.Sprintf("%s-a%d", w.key, w.attempts)
		}
		r := c.call(w.tool, args, token, w.attempts)
		if r.outcome == outcomeOK {
			c.l.mu.Lock()
			w.ack = r.structured
			c.l.mu.Unlock()
			return r.structured
		}
		if r.outcome != outcomeRetriable || time.Now().After(deadline) {
			return nil
		}
		time.Sleep(50 * time.Millisecond) // paces the retries
	}
}

// call makes one call through the client's next front door and records
// it.
func (c *loadClient) call(tool string, args map[string]any, progressToken string, attempt int) callResult {
	front := c.next % len(c.l.fronts)
	c.next++
	r := postToolCall(c.l.hc, c.l.fronts[front], c.l.token, c.l.ids.Add(1), tool, args, progressToken)
	c.l.mu.Lock()
	c.l.calls = append(c.l.calls, callRecord{client: c.id, tool: tool, front: front, attempt: attempt, callResult: r})
	c.l.mu.Unlock()
	return r
}

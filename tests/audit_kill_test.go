package tests

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestAuditSurvivesKill is the proof that the audit log is exact. Clients
// create tasks, create a task that is refused as a duplicate (the refusal
// quotes the title it resembles) and read tasks that do not exist, each
// read naming a ref of its own, against a real deployment: `taskwire
// serve` on SQLite, or a worker and a front door on PostgreSQL. The
// process holding the database work is SIGKILLed mid-load and restarted.
// Then every acknowledged call has its audit row, every task has exactly
// the one row of the create that made it, and no row holds a title.
func TestAuditSurvivesKill(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			var d killable
			if b == storetest.SQLite {
				d = startServed(t)
			} else {
				d = startSplit(t)
			}
			load := newAuditLoad(d.endpoint(), d.token())
			began := time.Now()
			load.start()
			t.Cleanup(load.stop) // should the test end early
			poll.Until(t, 60*time.Second, "the load to be acknowledged (60 creates, 10 reads, 3 refusals)", func() bool {
				c := load.counts()
				return c.creates >= 60 && c.reads >= 10 && c.refusals >= 3
			})
			killedAt := time.Now()
			d.kill(t)
			load.stop()
			d.restart(t)
			c := load.counts()
			t.Logf("acknowledged in %v before the kill: %d creates, %d refused duplicates, %d reads",
				killedAt.Sub(began).Round(time.Millisecond), c.creates, c.refusals, c.reads)
			checkAudit(t, d.dsn(), load)
		})
	}
}

// killable is a deployment the test kills and restarts.
type killable interface {
	endpoint() string // host:port of the MCP endpoint
	token() string
	dsn() string
	kill(t *testing.T)    // SIGKILL what writes to the database
	restart(t *testing.T) // start it again, and return once it answers
}

// servedProc is `taskwire serve` as a process, on a SQLite file.
type servedProc struct {
	dir, addr, db, tok string
	p                  *nodetest.Proc
}

// firstToken matches the token serve prints on its first start.
var firstToken = regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`)

func startServed(t *testing.T) *servedProc {
	t.Helper()
	return startServedIn(t, t.TempDir())
}

// startServedIn starts serve with dir as its data directory.
func startServedIn(t *testing.T, dir string) *servedProc {
	t.Helper()
	s := &servedProc{dir: dir, addr: nodetest.FreeAddr(t)}
	s.db = "sqlite:" + filepath.Join(s.dir, "taskwire.db")
	s.p = s.start(t, "serve")
	poll.Until(t, 20*time.Second, "serve to print its first token", func() bool {
		m := firstToken.FindStringSubmatch(s.p.Stdout.String())
		if m != nil {
			s.tok = m[1]
		}
		return m != nil
	})
	return s
}

func (s *servedProc) start(t *testing.T, name string) *nodetest.Proc {
	t.Helper()
	p := nodetest.StartProc(t, s.dir, name, "serve", "--addr", s.addr, "--data", s.dir, "--db", s.db,
		"--rate-token", "0", "--rate-tenant", "0", "--log-level", "warn")
	poll.Until(t, 20*time.Second, name+" to serve", func() bool { return strings.Contains(p.Stdout.String(), "serving MCP at") })
	return p
}

func (s *servedProc) endpoint() string { return s.addr }
func (s *servedProc) token() string    { return s.tok }
func (s *servedProc) dsn() string      { return s.db }

func (s *servedProc) kill(t *testing.T) {
	t.Helper()
	s.p.Signal(t, syscall.SIGKILL)
	s.p.Wait(t, 10*time.Second)
}

func (s *servedProc) restart(t *testing.T) {
	t.Helper()
	s.p = s.start(t, "serve restarted")
	answers(t, s.addr, s.tok)
}

// splitProcs is a worker and a front door on PostgreSQL, over NATS.
type splitProcs struct {
	d   *deployment
	w   *workerProc
	tok string
}

func startSplit(t *testing.T) *splitProcs {
	t.Helper()
	d := newDeployment(t, storetest.Postgres) // skips without PostgreSQL or NATS
	nodetest.RunProc(t, d.dir, "migrate", "--db", d.db)
	s := &splitProcs{d: d, w: d.startWorker(t, "worker", "127.0.0.1:0")}
	d.startFront(t, s.w.grpc)
	s.tok = d.ownerToken(t)
	return s
}

func (s *splitProcs) endpoint() string { return s.d.frontAddr }
func (s *splitProcs) token() string    { return s.tok }
func (s *splitProcs) dsn() string      { return s.d.db }

func (s *splitProcs) kill(t *testing.T) {
	t.Helper()
	s.w.Signal(t, syscall.SIGKILL)
	s.w.Wait(t, 10*time.Second)
}

func (s *splitProcs) restart(t *testing.T) {
	t.Helper()
	s.w = s.d.startWorker(t, "worker restarted", s.w.grpc)
	poll.Until(t, 10*time.Second, "the front door to be ready again", func() bool { return nodetest.Probe(s.d.url("/readyz")) == http.StatusOK })
	answers(t, s.d.frontAddr, s.tok)
}

// answers fails the test unless a tasks_list through the endpoint at addr
// succeeds.
func answers(t *testing.T, addr, token string) {
	t.Helper()
	if r := postToolCall(http.DefaultClient, addr, token, 1, "tasks_list", map[string]any{}, ""); r.outcome != outcomeOK {
		t.Fatalf("tasks_list after the restart: %s", r.why)
	}
}

// auditSecret is in every title of the load: no audit row may hold it.
const auditSecret = "Zanzibar"

// auditLoad is the load of TestAuditSurvivesKill: creators, a client
// whose creates repeat one title (all but the first refused as
// duplicates), and readers of refs that do not exist, one ref per call.
// It keeps what was acknowledged.
type auditLoad struct {
	front, token string
	hc           *http.Client
	ids          atomic.Int64
	stopped      atomic.Bool
	wg           sync.WaitGroup
	once         sync.Once

	mu       sync.Mutex
	created  []string // titles of acknowledged creates
	reads    []string // refs of acknowledged reads (each answered: no such task)
	refusals int      // acknowledged duplicate refusals
}

type auditCounts struct{ creates, reads, refusals int }

func newAuditLoad(front, token string) *auditLoad {
	return &auditLoad{front: front, token: token, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// Clients of each kind.
const (
	auditCreators = 5
	auditReaders  = 2
)

func (l *auditLoad) start() {
	for c := range auditCreators {
		l.loop(func(i int) { l.create(fmt.Sprintf("%s memo %d-%d", auditSecret, c, i), true) })
	}
	l.loop(func(int) { l.create(auditSecret+" duplicate plan for the quarter", false) })
	for c := range auditReaders {
		l.loop(func(i int) { l.read(fmt.Sprintf("T-%d", 1_000_000+c*100_000+i)) })
	}
}

// loop runs call with 0, 1, 2 … until stop.
func (l *auditLoad) loop(call func(i int)) {
	l.wg.Go(func() {
		for i := 0; !l.stopped.Load(); i++ {
			call(i)
		}
	})
}

func (l *auditLoad) stop() {
	l.once.Do(func() {
		l.stopped.Store(true)
		l.wg.Wait()
	})
}

func (l *auditLoad) call(tool string, args map[string]any) callResult {
	return postTool(l.hc, l.front, l.token, l.ids.Add(1), tool, args, "")
}

// create creates a task titled title; unless allowDuplicate, a refusal
// as a likely duplicate is what is acknowledged.
func (l *auditLoad) create(title string, allowDuplicate bool) {
	r := l.call("tasks_create", map[string]any{"title": title, "allow_duplicate": allowDuplicate})
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.outcome == outcomeOK:
		l.created = append(l.created, title)
	case !allowDuplicate && strings.Contains(r.why, "very similar title"):
		l.refusals++
	}
}

// read asks for ref, which does not exist: the answer saying so is what
// is acknowledged.
func (l *auditLoad) read(ref string) {
	r := l.call("tasks_get", map[string]any{"ref": ref})
	if strings.Contains(r.why, "isError: ") && strings.Contains(r.why, ref) {
		l.mu.Lock()
		l.reads = append(l.reads, ref)
		l.mu.Unlock()
	}
}

func (l *auditLoad) counts() auditCounts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return auditCounts{len(l.created), len(l.reads), l.refusals}
}

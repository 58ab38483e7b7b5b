package tests

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestSeparateProcesses runs a deployment as separate processes of the
// built command: `taskwire migrate`, two `taskwire worker`s sharing one
// database (a SQLite file, or PostgreSQL) and one `taskwire frontdoor`,
// over a NATS server. It checks what an operator relies on: a worker
// refuses an unmigrated database, probes tell the truth, calls are spread
// over the workers, a killed worker costs at most a retriable error, a
// SIGTERM lets the call in flight finish, and a restarted worker takes
// calls again.
func TestSeparateProcesses(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			d := newDeployment(t, b)
			d.refuseUnmigrated(t)
			d.migrate(t, b)
			w1, w2 := d.startWorker(t, "worker 1", "127.0.0.1:0"), d.startWorker(t, "worker 2", "127.0.0.1:0")
			for _, w := range []*workerProc{w1, w2} {
				w.checkHealthy(t)
			}
			d.startFront(t, w1.grpc+","+w2.grpc)
			token := d.ownerToken(t)
			d.checkBalanced(t, token, w1, w2)
			d.killUnderLoad(t, token, w1)
			d.drainMidCall(t, token, w2)
			w3 := d.startWorker(t, "worker 3", w2.grpc) // where worker 2 was
			poll.Until(t, 10*time.Second, "the front door to be ready again", func() bool { return nodetest.Probe(d.url("/readyz")) == http.StatusOK })
			nodetest.CallOK(t, d.client(t, token, nil), "tasks_list", nil)
			d.stopAll(t, w3)
		})
	}
}

// deployment is the shared configuration of a test's processes.
type deployment struct {
	dir, db, nats           string
	key, internal, operator string // files
	front                   *nodetest.Proc
	frontAddr               string
}

func newDeployment(t *testing.T, b storetest.Backend) *deployment {
	t.Helper()
	nats := natstest.Start(t)
	if b == storetest.Postgres {
		if nats = os.Getenv("TASKWIRE_TEST_NATS"); nats == "" {
			t.Skip("TASKWIRE_TEST_NATS not set: skipping the PostgreSQL + NATS server processes")
		}
	}
	return newDeploymentOn(t, storetest.DSN(t, b), nats)
}

// newDeploymentOn is a deployment over the database dsn and the NATS
// server at nats, e.g. servers of the test's own that it crashes.
func newDeploymentOn(t *testing.T, dsn, nats string) *deployment {
	t.Helper()
	d := &deployment{dir: t.TempDir(), db: dsn, nats: nats}
	d.key = filepath.Join(d.dir, "root.key")
	if _, _, err := authn.LoadOrCreateKey(d.key); err != nil {
		t.Fatal(err)
	}
	d.internal, d.operator = filepath.Join(d.dir, "internal.key"), filepath.Join(d.dir, "operator.secret")
	nodetest.WriteSecret(t, d.internal)
	nodetest.WriteSecret(t, d.operator)
	d.frontAddr = nodetest.FreeAddr(t)
	return d
}

func (d *deployment) url(path string) string { return "http://" + d.frontAddr + path }

// shared are the flags every worker and front door of d takes alike.
func (d *deployment) shared() []string {
	return []string{"--public-url", d.url(""), "--signing-key", d.key, "--internal-key-file", d.internal,
		"--nats", d.nats, "--shutdown-grace", "10s"}
}

// refuseUnmigrated: a worker started on a database nobody migrated exits
// at once, telling the operator to run the migration.
func (d *deployment) refuseUnmigrated(t *testing.T) {
	t.Helper()
	p := nodetest.StartProc(t, d.dir, "unmigrated worker", append([]string{"worker", "--db", d.db, "--listen", "127.0.0.1:0", "--http", ""}, d.shared()...)...)
	err := p.Wait(t, 20*time.Second)
	if msg := p.Stderr.String(); err == nil || !strings.Contains(msg, "database schema is behind") || !strings.Contains(msg, "taskwire migrate") {
		t.Fatalf("worker on an unmigrated database = %v, stderr %q; want it to refuse, naming taskwire migrate", err, msg)
	}
}

// migrate runs the migration twice, and on PostgreSQL twice at once too.
func (d *deployment) migrate(t *testing.T, b storetest.Backend) {
	t.Helper()
	if b == storetest.Postgres {
		a, c := nodetest.StartProc(t, d.dir, "migrate a", "migrate", "--db", d.db), nodetest.StartProc(t, d.dir, "migrate b", "migrate", "--db", d.db)
		for _, p := range []*nodetest.Proc{a, c} {
			if err := p.Wait(t, 30*time.Second); err != nil {
				t.Fatalf("concurrent %s: %v\n%s", p.Name, err, p.Stderr.String())
			}
		}
	} else if out, want := nodetest.RunProc(t, d.dir, "migrate", "--db", d.db), fmt.Sprintf("from version 0 to %d", store.SchemaVersion); !strings.Contains(out, want) {
		t.Errorf("first migrate printed %q, want it to say %q", out, want)
	}
	if out, want := nodetest.RunProc(t, d.dir, "migrate", "--db", d.db), fmt.Sprintf("at version %d already", store.SchemaVersion); !strings.Contains(out, want) {
		t.Errorf("second migrate printed %q, want it to say %q", out, want)
	}
}

// workerProc is a running worker and its addresses.
type workerProc struct {
	*nodetest.Proc
	grpc, http string
}

// startWorker starts a worker listening on listen, and returns once it
// serves.
func (d *deployment) startWorker(t *testing.T, name, listen string) *workerProc {
	t.Helper()
	args := append([]string{"worker", "--db", d.db, "--listen", listen, "--http", "127.0.0.1:0"}, d.shared()...)
	p := nodetest.StartProc(t, d.dir, name, args...)
	rec := p.Logged(t, "worker serving")
	return &workerProc{Proc: p, grpc: rec["grpc"].(string), http: rec["http"].(string)}
}

// checkHealthy: liveness, readiness and gRPC health all say serving.
func (w *workerProc) checkHealthy(t *testing.T) {
	t.Helper()
	for _, path := range []string{"/healthz", "/readyz"} {
		if got := nodetest.Probe("http://" + w.http + path); got != http.StatusOK {
			t.Errorf("%s %s = %d, want 200", w.Name, path, got)
		}
	}
	if got := nodetest.GRPCHealth(t, w.grpc); got != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("%s gRPC health = %v, want SERVING", w.Name, got)
	}
}

// startFront starts the front door on d's address in front of workers.
func (d *deployment) startFront(t *testing.T, workers string) {
	t.Helper()
	// No rate limits: the load of killUnderLoad comes from one token.
	args := append([]string{"frontdoor", "--addr", d.frontAddr, "--workers", workers, "--operator-secret-file", d.operator, "--rate-token", "0", "--rate-tenant", "0"}, d.shared()...)
	d.front = nodetest.StartProc(t, d.dir, "front door", args...)
	d.front.Logged(t, "front door serving")
	for _, path := range []string{"/healthz", "/readyz"} {
		if got := nodetest.Probe(d.url(path)); got != http.StatusOK {
			t.Errorf("front door %s = %d, want 200", path, got)
		}
	}
}

// ownerToken creates a tenant through the front door's admin API, as an
// operator, and mints a token for its owner with `taskwire token create`
// over the same database and key.
func (d *deployment) ownerToken(t *testing.T) string {
	t.Helper()
	nodetest.RunProc(t, d.dir, "admin", "tenants", "create", "acme", "--owner", "ada", "--url", d.url(""), "--operator-secret-file", d.operator)
	out := nodetest.RunProc(t, d.dir, "token", "create", "--db", d.db, "--signing-key", d.key, "--public-url", d.url(""), "--tenant", "acme", "--member", "ada")
	return strings.TrimSpace(out)
}

// client connects an MCP client to the front door with token.
func (d *deployment) client(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	rec := nodetest.NewWireRecorder(t, token, "", http.DefaultTransport)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "taskwire-procs", Version: "1.0.0"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: d.url("/api/mcp"), HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// checkBalanced: a few calls through the front door reach both workers.
func (d *deployment) checkBalanced(t *testing.T, token string, workers ...*workerProc) {
	t.Helper()
	cs := d.client(t, token, nil)
	for i := range 6 {
		nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": fmt.Sprintf("Balanced %d", i)})
	}
	for _, w := range workers {
		if !w.served("/taskwire.v1.BoardService/CreateTask") {
			t.Errorf("%s served no tasks_create of 6: calls are not spread over the workers", w.Name)
		}
	}
}

// served reports whether the worker logged a call of method.
func (w *workerProc) served(method string) bool {
	return strings.Contains(w.Stderr.String(), `"method":"`+method+`"`)
}

// retriable reports whether a failed call tells the client to try again.
func retriable(res *mcp.CallToolResult, err error) bool {
	if err != nil {
		return strings.Contains(strings.ToLower(err.Error()), "try again")
	}
	return res.IsError && strings.Contains(strings.ToLower(nodetest.Text(res)), "try again")
}

// stopAll stops the front door and w with SIGTERM: both exit 0.
func (d *deployment) stopAll(t *testing.T, w *workerProc) {
	t.Helper()
	for _, p := range []*nodetest.Proc{d.front, w.Proc} {
		p.Signal(t, syscall.SIGTERM)
		if err := p.Wait(t, 15*time.Second); err != nil {
			t.Errorf("%s after SIGTERM: %v, want exit 0\n%s", p.Name, err, p.Stderr.String())
		}
	}
	d.front.Logged(t, "front door stopped")
	w.Logged(t, "worker stopped")
}

// importArgs are the arguments of a tasks_import of n tasks.
func importArgs(prefix string, n int) map[string]any {
	drafts := make([]map[string]any, n)
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("%s %d", prefix, i+1)}
	}
	return map[string]any{"tasks": drafts}
}

package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestCopyServeToPostgres is the move off one machine, as the
// "Outgrowing one machine" page walks it: a real `taskwire serve` works a
// little and stops; `taskwire copy` moves its data directory's database
// into PostgreSQL; `taskwire migrate`, a worker and a front door start on
// it with serve's public URL, root key and operator secret; and a go-sdk
// client with the owner's token serve printed at its first start reads the
// same tasks, comments and history, and writes new ones.
func TestCopyServeToPostgres(t *testing.T) {
	dsn := storetest.DSN(t, storetest.Postgres) // skips without PostgreSQL
	nats := os.Getenv("TASKWIRE_TEST_NATS")
	if nats == "" {
		t.Skip("TASKWIRE_TEST_NATS not set: skipping the copy to a PostgreSQL + NATS deployment")
	}
	s := startServedIn(t, t.TempDir())
	d := &deployment{dir: t.TempDir(), db: dsn, nats: nats, frontAddr: s.addr,
		key: filepath.Join(s.dir, "signing.key"), operator: filepath.Join(s.dir, "operator.secret"), internal: filepath.Join(t.TempDir(), "internal.key")}
	nodetest.WriteSecret(t, d.internal)
	before := workABit(t, d.client(t, s.tok, nil))
	s.p.Signal(t, syscall.SIGTERM)
	if err := s.p.Wait(t, 20*time.Second); err != nil {
		t.Fatalf("serve stopping: %v", err)
	}

	start := time.Now()
	out := nodetest.RunProc(t, d.dir, "copy", "--from", s.dir, "--to", dsn, "--public-url", d.url(""))
	t.Logf("taskwire copy took %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	for _, want := range []string{"every table matches", "--signing-key " + d.key, "--public-url " + d.url(""), "--operator-secret-file " + d.operator} {
		if !strings.Contains(out, want) {
			t.Errorf("taskwire copy printed no %q:\n%s", want, out)
		}
	}
	if out := nodetest.RunProc(t, d.dir, "migrate", "--db", dsn); !strings.Contains(out, "already") {
		t.Errorf("taskwire migrate after the copy printed %q, want the schema at its version already", out)
	}
	w := d.startWorker(t, "worker", "127.0.0.1:0")
	d.startFront(t, w.grpc)

	cs := d.client(t, s.tok, nil)
	if diff := cmp.Diff(before, readBack(t, cs)); diff != "" {
		t.Errorf("what the old owner token reads after the move (-before +after):\n%s", diff)
	}
	nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "The first task on PostgreSQL"})
	if out := nodetest.RunProc(t, d.dir, "admin", "tenants", "list", "--url", d.url(""), "--operator-secret-file", d.operator); !strings.Contains(out, "default") {
		t.Errorf("taskwire admin tenants list with serve's operator secret = %q, want the default tenant", out)
	}
}

// workABit creates tasks, comments on one, moves another, and returns what
// readBack reads of them.
func workABit(t *testing.T, cs *mcp.ClientSession) map[string]any {
	t.Helper()
	var refs []string
	for i := range 3 {
		task := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": fmt.Sprintf("Outgrow the machine %d", i), "note": "Stop serve, copy, start the split."})
		refs = append(refs, task["task"].(map[string]any)["ref"].(string))
	}
	nodetest.CallOK(t, cs, "comments_add", map[string]any{"ref": refs[0], "body": "Measured the downtime."})
	nodetest.CallOK(t, cs, "tasks_move", map[string]any{"ref": refs[1], "lane": "doing"})
	got := readBack(t, cs)
	if n := len(got["tasks_list"].(map[string]any)["items"].([]any)); n != 3 {
		t.Fatalf("tasks_list before the move lists %d tasks, want 3", n)
	}
	return got
}

// readBack is what a client reads of the board: the list, and every task
// with its comments and history.
func readBack(t *testing.T, cs *mcp.ClientSession) map[string]any {
	t.Helper()
	list := nodetest.CallOK(t, cs, "tasks_list", nil)
	out := map[string]any{"tasks_list": list}
	for _, task := range list["items"].([]any) {
		ref := task.(map[string]any)["ref"].(string)
		out[ref] = nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": ref, "include_comments": true, "include_history": true})
	}
	// Through JSON, so both sides compare as the same types.
	b, _ := json.Marshal(out)
	var norm map[string]any
	json.Unmarshal(b, &norm)
	return norm
}

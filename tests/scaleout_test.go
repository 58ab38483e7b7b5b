package tests

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestScaleOut is the proof that a scaled-out deployment survives the loss
// of a worker under load. It runs `taskwire migrate`, three PostgreSQL
// workers and two front doors as separate processes over a NATS server,
// drives mixed load through both front doors (reads, idempotent writes,
// imports with progress), SIGKILLs a worker mid-load and restarts it on
// its address, and then checks what a client relies on: every
// acknowledged write is in the database exactly once, every failure said
// to try again, progress reached each import's own stream, and load went
// on at once. It prints the counts.
func TestScaleOut(t *testing.T) {
	d := newDeployment(t, storetest.Postgres) // a fresh schema; skips without PostgreSQL or NATS
	nodetest.RunProc(t, d.dir, "migrate", "--db", d.db)
	workers := make([]*workerProc, 3)
	for i := range workers {
		workers[i] = d.startWorker(t, fmt.Sprintf("worker %d", i+1), nodetest.FreeAddr(t))
	}
	var addrs []string
	for _, w := range workers {
		addrs = append(addrs, w.grpc)
	}
	d.startFront(t, strings.Join(addrs, ","))
	fronts := []string{d.frontAddr, d.startFrontAt(t, "front door 2", strings.Join(addrs, ","))}
	load := newScaleLoad(fronts, d.ownerToken(t), "Scale")

	start := time.Now()
	load.start(8)
	t.Cleanup(load.stop) // should the test end early
	k := d.killAndRestart(t, load, workers[0])
	load.stop()
	k.loadTime = time.Since(start)
	k.workers = []*workerProc{workers[1], workers[2], k.restarted}

	calls := load.snapshot()
	logScaleOut(t, calls, k)
	checkCalls(t, calls, k)
	checkImportProgress(t, calls)
	checkWrites(t, d.db, load.writes)
}

// startFrontAt starts one more front door of d, on an address of its
// own, in front of workers, behind d's public URL as behind a load
// balancer, and returns its address once it is ready.
func (d *deployment) startFrontAt(t *testing.T, name, workers string) string {
	t.Helper()
	addr := nodetest.FreeAddr(t)
	args := append([]string{"frontdoor", "--addr", addr, "--workers", workers, "--operator-secret-file", d.operator,
		"--rate-token", "0", "--rate-tenant", "0"}, d.shared()...)
	nodetest.StartProc(t, d.dir, name, args...).Logged(t, "front door serving")
	poll.Until(t, 10*time.Second, name+" to be ready", func() bool { return nodetest.Probe("http://"+addr+"/readyz") == http.StatusOK })
	return addr
}

// killing is the timeline of the worker TestScaleOut kills.
type killing struct {
	victim                *workerProc
	restarted             *workerProc
	killAt, restartAt     time.Time
	servedAt              time.Time // when the restarted worker was seen serving a call
	loadTime              time.Duration
	workers               []*workerProc // the workers alive at the end
	callsBefore, okBefore int
}

// outage is how long the killed worker stays dead before it restarts: a
// pace of the scenario (a crashed pod comes back after a while), not a
// wait for anything.
const outage = 300 * time.Millisecond

// killAndRestart lets the load warm up, SIGKILLs victim, restarts it on
// its address after an outage, and lets the load run until the restarted
// worker serves calls again, and a moment beyond.
func (d *deployment) killAndRestart(t *testing.T, load *scaleLoad, victim *workerProc) *killing {
	t.Helper()
	k := &killing{victim: victim}
	poll.Until(t, 20*time.Second, "the load to warm up (40 calls and an import succeeded)", func() bool {
		ok, imports := 0, 0
		for _, c := range load.snapshot() {
			if c.outcome == outcomeOK {
				ok++
				if c.tool == "tasks_import" {
					imports++
				}
			}
		}
		return ok >= 40 && imports >= 1
	})
	for _, c := range load.snapshot() {
		k.callsBefore++
		if c.outcome == outcomeOK {
			k.okBefore++
		}
	}
	k.killAt = time.Now()
	victim.Signal(t, syscall.SIGKILL)
	victim.Wait(t, 10*time.Second)
	time.Sleep(outage)
	k.restartAt = time.Now()
	k.restarted = d.startWorker(t, victim.Name+" restarted", victim.grpc)
	poll.Until(t, 15*time.Second, "the restarted worker to serve a tool call", func() bool { return k.restarted.toolCalls() > 0 })
	k.servedAt = time.Now()
	// A pace of the scenario, not a wait for anything: the load runs a
	// second more with all three workers up, so that the checks see calls
	// served by the restarted worker among the others.
	time.Sleep(time.Second)
	return k
}

// toolCalls counts the board calls the worker logged.
func (w *workerProc) toolCalls() int {
	return strings.Count(w.Stderr.String(), `"method":"/taskwire.v1.BoardService/`)
}

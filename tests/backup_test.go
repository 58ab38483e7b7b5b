package tests

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBackupUnderWrites is issue 21's test of the embedded default's
// backups: `taskwire backup` of a `taskwire serve` that writers keep busy,
// then `taskwire restore` into a new data directory and serve started on
// it at the same address. Every task whose creation was acknowledged
// before the backup started is there, and the owner's token from the
// first start, minted before the backup, is accepted.
//
// The writers keep a pace at which SQLite's write-ahead log is not yet
// checkpointed into the database file when the backup starts (about 40
// creations fill the 1,000 pages that take): the tasks acknowledged before
// it are then in the log alone, and a backup that copied the database
// file would miss them all.
func TestBackupUnderWrites(t *testing.T) {
	s := startServedIn(t, t.TempDir())
	w := startWriters(s, 4, 100*time.Millisecond)
	poll.Until(t, 10*time.Second, "writers to have tasks acknowledged", func() bool { return len(w.acked()) >= 12 })

	out := filepath.Join(t.TempDir(), "taskwire-backup.zip")
	before := w.acked() // every creation acknowledged before the backup starts
	said := nodetest.RunProc(t, s.dir, "backup", "--data", s.dir, "--out", out)
	during := len(w.acked()) - len(before)
	poll.Until(t, 10*time.Second, "writers to go on after the backup", func() bool { return len(w.acked()) > len(before)+during })
	all := w.stop()
	t.Logf("tasks acknowledged before the backup: %d, while it ran: %d, in all: %d", len(before), during, len(all))
	if !strings.Contains(said, "snapshot of taskwire.db: ") || !strings.Contains(said, "integrity check of the snapshot: ok") {
		t.Errorf("taskwire backup printed %q, want the snapshot's size and its integrity check", said)
	}
	s.p.Signal(t, syscall.SIGTERM)
	if err := s.p.Wait(t, 20*time.Second); err != nil {
		t.Fatalf("serve stopping: %v", err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	said = nodetest.RunProc(t, s.dir, "restore", "--from", out, "--data", restored)
	if want := "--public-url http://" + s.addr; !strings.Contains(said, want) {
		t.Errorf("taskwire restore printed %q, want the command to start it, with %s", said, want)
	}
	again := &servedProc{dir: restored, addr: s.addr, db: "sqlite:" + filepath.Join(restored, "taskwire.db"), tok: s.tok}
	again.p = again.start(t, "restored serve")
	have := listTitles(t, again)
	for _, title := range before {
		if !have[title] {
			t.Errorf("task %q, acknowledged before the backup started, is missing after the restore", title)
		}
	}
	if len(have) > len(all) {
		t.Errorf("restored server lists %d tasks, more than the %d ever created", len(have), len(all))
	}
}

// writers create tasks through MCP with the owner's token until stopped,
// each at most one every pace, and record the titles of the creations
// acknowledged.
type writers struct {
	mu     sync.Mutex
	titles []string
	done   chan struct{}
	wg     sync.WaitGroup
}

func startWriters(s *servedProc, n int, pace time.Duration) *writers {
	w := &writers{done: make(chan struct{})}
	for i := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			hc := &http.Client{}
			tick := time.NewTicker(pace)
			defer tick.Stop()
			for j := 0; ; j++ {
				select {
				case <-w.done:
					return
				case <-tick.C:
				}
				title := fmt.Sprintf("writer %d task %d", i, j)
				r := postTool(hc, s.addr, s.tok, int64(j+1), "tasks_create", map[string]any{"title": title, "allow_duplicate": true}, "")
				if r.outcome == outcomeOK {
					w.mu.Lock()
					w.titles = append(w.titles, title)
					w.mu.Unlock()
				}
			}
		}()
	}
	return w
}

// acked returns the titles of the creations acknowledged so far.
func (w *writers) acked() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.titles...)
}

// stop ends the writers and returns every title acknowledged.
func (w *writers) stop() []string {
	close(w.done)
	w.wg.Wait()
	return w.acked()
}

// listTitles lists every task of s's owner, page after page, with the
// owner's token, and returns their titles.
func listTitles(t *testing.T, s *servedProc) map[string]bool {
	t.Helper()
	hc := &http.Client{}
	have := map[string]bool{}
	args := map[string]any{"limit": 100}
	for id := int64(1); ; id++ {
		r := postTool(hc, s.addr, s.tok, id, "tasks_list", args, "")
		if r.outcome != outcomeOK {
			t.Fatalf("tasks_list with the token minted before the backup: %s", r.why)
		}
		items, _ := r.structured["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				have[fmt.Sprint(m["title"])] = true
			}
		}
		next, _ := r.structured["next_cursor"].(string)
		if next == "" {
			return have
		}
		args["cursor"] = next
	}
}

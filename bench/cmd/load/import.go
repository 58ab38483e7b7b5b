package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// importBatch is how many tasks Taskwire's tasks_import creates between
// progress reports, so a call with n drafts must bring ceil(n/10)
// notifications; fewer is a lost notification.
const importBatch = 10

// importResult is what one tasks_import call with a progressToken showed.
type importResult struct {
	firstProgress, total time.Duration
	notifications, lost  int
}

// importOnce makes one tasks_import call of n drafts with a progressToken and
// counts the progress notifications before its result.
func (c *client) importOnce(ctx context.Context, id int64, n int, label string) (importResult, error) {
	var res importResult
	drafts := make([]map[string]any, n)
	kinds := []string{"task", "bug", "feature", "chore"}
	lanes := []string{"backlog", "next", "doing", "done"}
	for i := range drafts {
		drafts[i] = map[string]any{"title": fmt.Sprintf("%s task %d", label, i+1),
			"note": "Imported by the benchmark.", "kind": kinds[i%4], "lane": lanes[i/3%4],
			"labels": []string{"bench", kinds[(i+1)%4]}}
	}
	token := fmt.Sprintf("p%d", id)
	// The drafts' titles differ only in numbers, which the duplicate check
	// of tasks_import compares as words: import them all, as before it.
	b, err := body(id, "tools/call", "tasks_import", map[string]any{"tasks": drafts, "allow_duplicate": true}, token)
	if err != nil {
		return res, err
	}
	req, err := c.request(ctx, "tools/call", "tasks_import", b)
	if err != nil {
		return res, err
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return res, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	var final message
	last := 0.0
	err = readSSE(resp.Body, func(data []byte) (bool, error) {
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return false, err
		}
		if m.Method == "notifications/progress" && m.Params != nil {
			if res.notifications == 0 {
				res.firstProgress = time.Since(start)
			}
			if m.Params.Progress <= last {
				return false, fmt.Errorf("progress went from %v to %v", last, m.Params.Progress)
			}
			last = m.Params.Progress
			res.notifications++
			return false, nil
		}
		if len(m.ID) > 0 && m.Method == "" {
			final = m
			return true, nil
		}
		return false, nil
	})
	res.total = time.Since(start)
	if err != nil {
		return res, err
	}
	if err := final.check(); err != nil {
		return res, err
	}
	res.lost = (n+importBatch-1)/importBatch - res.notifications
	return res, nil
}

// importCmd runs tasks_import calls with progress at a fixed concurrency.
func importCmd(args []string) error {
	var c common
	fs := flag.NewFlagSet("import", flag.ExitOnError)
	c.register(fs)
	n := fs.Int("tasks", 120, "drafts per call")
	conc := fs.Int("c", 1, "concurrent callers")
	dur := fs.Duration("d", 5*time.Second, "duration")
	want := fs.Int("notifications", 0, "run until this many progress notifications have arrived, however long it takes, instead of for -d")
	fs.Parse(args)
	pids, err := parsePIDs(c.pids)
	if err != nil {
		return err
	}
	cl := newClient(c.url, c.token, *conc)
	before, err := sampleProcs(pids)
	if err != nil {
		return err
	}
	self0, _ := sampleProcs([]int{os.Getpid()})
	var mu sync.Mutex
	var totals, firsts []time.Duration
	r := Record{Round: c.round, Scenario: c.scenario, Setup: c.setup, Tool: "tasks_import", Concurrency: *conc}
	var seq atomic.Int64
	nonce := time.Now().UnixNano()
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	if *want > 0 {
		ctx, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range *conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				id := seq.Add(1)
				res, err := cl.importOnce(context.Background(), id, *n, fmt.Sprintf("bench %s %x #%d", c.setup, nonce, id))
				mu.Lock()
				totals = append(totals, res.total)
				if err != nil {
					r.Errors++
					if r.FirstError == "" {
						r.FirstError = err.Error()
					}
				} else {
					firsts = append(firsts, res.firstProgress)
					r.Notifications += res.notifications
					r.Lost += res.lost
				}
				if *want > 0 && r.Notifications >= *want {
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	after, err := sampleProcs(pids)
	if err != nil {
		return err
	}
	self1, _ := sampleProcs([]int{os.Getpid()})
	sortDurations(totals)
	sortDurations(firsts)
	r.Seconds = elapsed.Seconds()
	r.Requests = len(totals)
	fill(&r, totals, elapsed, before, after, self1.cpu-self0.cpu)
	r.FirstProgressMs = ms(percentile(firsts, 0.5))
	return write(c.out, r)
}

// maxImport is the most drafts one tasks_import takes.
const maxImport = 200

// seedCmd fills a Taskwire board with tasks through tasks_import,
// maxImport at a time.
func seedCmd(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	url := fs.String("url", "", "MCP endpoint")
	token := fs.String("token", "", "bearer token")
	n := fs.Int("tasks", 1000, "tasks to create")
	fs.Parse(args)
	cl := newClient(*url, *token, 1)
	for done := 0; done < *n; {
		k := min(maxImport, *n-done)
		res, err := cl.importOnce(context.Background(), int64(done+1), k, fmt.Sprintf("Seeded batch %d", done/maxImport+1))
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if res.lost != 0 {
			return errors.New("seed: progress notifications lost")
		}
		done += k
	}
	fmt.Printf("seeded %d tasks\n", *n)
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
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
	// warnings are the notifications/message of level warning or worse
	// that came with the call, e.g. a front door saying that progress
	// cannot be relayed, and the progress notifications saying so (the
	// only way to say it to a call that asked for no messages); warning is
	// the first one's text.
	warnings int
	warning  string
}

// notRelayed is in the message of a progress notification by which a
// front door says that the call's progress could not all be relayed.
const notRelayed = "could not be relayed"

// importOpts are how an import's drafts are made.
type importOpts struct {
	// open puts no draft in the done lane, so that every task it adds is open.
	open bool
	// checkDuplicates lets tasks_import compare each draft with the board's
	// open tasks, as it does unless told otherwise; the drafts' titles are
	// far enough apart that none is skipped.
	checkDuplicates bool
}

// importOnce makes one tasks_import call of n drafts with a progressToken and
// counts the progress notifications before its result.
func (c *client) importOnce(ctx context.Context, id int64, n int, label string, o importOpts) (importResult, error) {
	var res importResult
	drafts := make([]map[string]any, n)
	kinds := []string{"task", "bug", "feature", "chore"}
	lanes := []string{"backlog", "next", "doing", "done"}
	if o.open {
		lanes = lanes[:3]
	}
	for i := range drafts {
		title := fmt.Sprintf("%s task %d: %s", label, i+1, phrase(id, i))
		if o.checkDuplicates {
			// Three words and one of its own: no two alike enough (0.8) to skip.
			h := fnv.New64a()
			fmt.Fprintf(h, "%s#%d", label, i)
			title = fmt.Sprintf("%s k%x", phrase(id, i), h.Sum64())
		}
		drafts[i] = map[string]any{"title": title,
			"note": "Imported by the benchmark.", "kind": kinds[i%4], "lane": lanes[i/3%len(lanes)],
			"labels": []string{"bench", kinds[(i+1)%4]}}
	}
	token := fmt.Sprintf("p%d", id)
	// Without checkDuplicates the drafts' titles may differ only in
	// numbers and a few words: import them all, as before the check.
	b, err := body(id, "tools/call", "tasks_import", map[string]any{"tasks": drafts, "allow_duplicate": !o.checkDuplicates}, token)
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
		return res, readHTTPError(resp)
	}
	var final message
	last := math.Inf(-1) // MCP wants each notification above the one before; the first may be 0
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A JSON answer: the result alone, without a notification.
		err = json.NewDecoder(resp.Body).Decode(&final)
		res.total = time.Since(start)
		if err != nil {
			return res, fmt.Errorf("decode response: %w", err)
		}
		if err := final.check(); err != nil {
			return res, err
		}
		res.lost = (n + importBatch - 1) / importBatch
		return res, nil
	}
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
			if strings.Contains(m.Params.Message, notRelayed) {
				if res.warnings == 0 {
					res.warning = "progress: " + m.Params.Message
				}
				res.warnings++
				return false, nil
			}
			res.notifications++
			return false, nil
		}
		if m.Method == "notifications/message" && m.Params != nil && m.Params.Level != "info" && m.Params.Level != "debug" && m.Params.Level != "notice" {
			if res.warnings == 0 {
				res.warning = m.Params.Level + ": " + string(m.Params.Data)
			}
			res.warnings++
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
	calls := fs.Int("calls", 0, "make this many calls, however long they take, instead of for -d")
	check := fs.Bool("check-duplicates", false, "let tasks_import check the drafts for duplicates of the board's open tasks")
	fs.Parse(args)
	pids, err := parsePIDs(c.pids)
	if err != nil {
		return err
	}
	cl, err := c.client(*conc)
	if err != nil {
		return err
	}
	db, err := openDBBackends(context.Background(), c.pg)
	if err != nil {
		return err
	}
	defer db.close()
	before, err := sampleProcs(pids)
	if err != nil {
		return err
	}
	db0, err := db.sample(context.Background())
	if err != nil {
		return err
	}
	self0, _ := sampleProcs([]int{os.Getpid()})
	var mu sync.Mutex
	var totals, firsts []time.Duration
	r := Record{Round: c.round, Scenario: c.scenario, Setup: c.setup, Tool: "tasks_import", Concurrency: *conc,
		Size: c.size, Tenants: c.tenants}
	var seq atomic.Int64
	nonce := time.Now().UnixNano()
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	if *want > 0 || *calls > 0 {
		ctx, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range *conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				id := seq.Add(1)
				if *calls > 0 && id > int64(*calls) {
					return
				}
				res, err := cl.importOnce(context.Background(), id, *n, fmt.Sprintf("bench %s %x #%d", c.setup, nonce, id), importOpts{checkDuplicates: *check})
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
	db1, err := db.sample(context.Background())
	if err != nil {
		return err
	}
	self1, _ := sampleProcs([]int{os.Getpid()})
	sortDurations(totals)
	sortDurations(firsts)
	r.Seconds = elapsed.Seconds()
	r.Requests = len(totals)
	fill(&r, totals, elapsed, before, after, self1.cpu-self0.cpu)
	db1.charge(&r, db0)
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
	open := fs.Bool("open", false, "put none in the done lane, so that all are open")
	from := fs.Int("from", 0, "number the batches after this many tasks seeded before")
	fs.Parse(args)
	start := time.Now()
	if err := seed(newClient(*url, *token, 1), *n, *from, *open); err != nil {
		return err
	}
	fmt.Printf("seeded %d tasks in %.1f s\n", *n, time.Since(start).Seconds())
	return nil
}

// seed imports n tasks through cl, maxImport a call, numbering the batches
// after from tasks seeded before.
func seed(cl *client, n, from int, open bool) error {
	for done := 0; done < n; {
		k := min(maxImport, n-done)
		batch := (from+done)/maxImport + 1
		res, err := cl.importOnce(context.Background(), int64(batch), k, fmt.Sprintf("Seeded batch %d", batch), importOpts{open: open})
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if res.lost != 0 {
			return errors.New("seed: progress notifications lost")
		}
		done += k
	}
	return nil
}

// words are what seeded titles are made of, so that a search finds a few
// tasks in every hundred rather than all of them or none.
var words = strings.Fields(`login timeout export crash upload invoice search
	cache retry mobile layout email report sync password calendar billing
	webhook token session import chart filter locale upgrade backup queue
	printer avatar payment schedule archive`)

// phrase is three of words for draft i of call id, the same every run.
func phrase(id int64, i int) string {
	h := uint64(id)*2654435761 + uint64(i)*40503
	w := make([]string, 3)
	for j := range w {
		h = h*6364136223846793005 + 1442695040888963407
		w[j] = words[(h>>33)%uint64(len(words))]
	}
	return strings.Join(w, " ")
}

package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// runCmd calls one tool at a fixed concurrency for a fixed time.
func runCmd(args []string) error {
	var c common
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	c.register(fs)
	tool := fs.String("tool", "tasks_get", "tasks_get, tasks_list, tasks_create, tasks_search or work_next")
	conc := fs.Int("c", 1, "concurrent callers, each with its own connection")
	dur := fs.Duration("d", 5*time.Second, "measured duration")
	warm := fs.Duration("warmup", time.Second, "unmeasured calls before it")
	refs := fs.Int("refs", 1000, "tasks_get asks for T-1 … T-<refs> at random")
	calls := fs.Int("calls", 0, "measure this many calls (warm-up excluded), however long they take, instead of for -d")
	query := fs.String("query", "login timeout", "what tasks_search searches for")
	fs.Parse(args)
	pids, err := parsePIDs(c.pids)
	if err != nil {
		return err
	}
	cl, err := c.client(*conc)
	if err != nil {
		return err
	}
	var seq atomic.Int64
	nonce := time.Now().UnixNano()
	argsFor := func() any {
		switch *tool {
		case "tasks_get":
			return map[string]any{"ref": ref(1 + rand.IntN(*refs))}
		case "tasks_list":
			return map[string]any{"limit": 25}
		case "tasks_create":
			return map[string]any{"title": fmt.Sprintf("bench %s %x #%d", c.setup, nonce, seq.Add(1)), "kind": "chore"}
		case "tasks_search":
			return map[string]any{"query": *query}
		}
		return map[string]any{}
	}
	phase := func(d time.Duration, n int) ([][]time.Duration, []int, string) {
		lat := make([][]time.Duration, *conc)
		errs := make([]int, *conc)
		var firstErr atomic.Value
		ctx, cancel := context.WithTimeout(context.Background(), d)
		if n > 0 {
			ctx, cancel = context.WithCancel(context.Background())
		}
		defer cancel()
		var left atomic.Int64
		left.Store(int64(n))
		var wg sync.WaitGroup
		for w := range *conc {
			wg.Go(func() {
				for ctx.Err() == nil && (n == 0 || left.Add(-1) >= 0) {
					b, _ := body(seq.Add(1), "tools/call", *tool, argsFor(), "")
					start := time.Now()
					err := cl.call(context.Background(), "tools/call", *tool, b)
					lat[w] = append(lat[w], time.Since(start))
					if err != nil {
						errs[w]++
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			})
		}
		wg.Wait()
		fe, _ := firstErr.Load().(string)
		return lat, errs, fe
	}
	db, err := openDBBackends(context.Background(), c.pg)
	if err != nil {
		return err
	}
	defer db.close()
	if *warm > 0 {
		phase(*warm, 0)
	}
	before, err := sampleProcs(pids)
	if err != nil {
		return err
	}
	db0, err := db.sample(context.Background())
	if err != nil {
		return err
	}
	self0, _ := sampleProcs([]int{os.Getpid()})
	start := time.Now()
	lat, errs, firstErr := phase(*dur, *calls)
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
	var all []time.Duration
	r := Record{Round: c.round, Scenario: c.scenario, Setup: c.setup, Tool: *tool, Concurrency: *conc,
		Size: c.size, Tenants: c.tenants, Seconds: elapsed.Seconds(), FirstError: firstErr}
	for w := range lat {
		all = append(all, lat[w]...)
		r.Errors += errs[w]
	}
	sortDurations(all)
	r.Requests = len(all)
	fill(&r, all, elapsed, before, after, self1.cpu-self0.cpu)
	db1.charge(&r, db0)
	return write(c.out, r)
}

// fill sets the throughput, latency and /proc figures of r.
func fill(r *Record, sorted []time.Duration, elapsed time.Duration, before, after procSample, self time.Duration) {
	r.RPS = float64(len(sorted)) / elapsed.Seconds()
	r.P50Ms = ms(percentile(sorted, 0.50))
	r.P99Ms = ms(percentile(sorted, 0.99))
	r.P999Ms = ms(percentile(sorted, 0.999))
	if n := len(sorted); n > 0 {
		r.ServerCPUus = float64(after.cpu-before.cpu) / float64(time.Microsecond) / float64(n)
		r.LoadCPUus = float64(self) / float64(time.Microsecond) / float64(n)
	}
	r.PeakRSSMB = float64(after.peakKB) / 1024
	r.RSSMB = float64(after.rssKB) / 1024
}

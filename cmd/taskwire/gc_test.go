package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
)

// gogc is the collector's GOGC now.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// keepGC restores the collector's settings when t ends.
func keepGC(t *testing.T) {
	t.Helper()
	percent, limit := gogc(), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// unsetenv unsets key for the rest of t.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "") // restores the value when t ends
	os.Unsetenv(key)
}

func TestTuneGC(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		env       map[string]string
		percent   int
		limit     int64 // the budget, or math.MaxInt64: none
		following bool
	}{
		{"serve", []string{"serve", "--data", "d"}, nil, defaultGCPercent, memoryBudgets["serve"], true},
		{"frontdoor", []string{"frontdoor"}, nil, defaultGCPercent, memoryBudgets["frontdoor"], true},
		{"worker", []string{"worker"}, nil, defaultGCPercent, memoryBudgets["worker"], true},
		{"not a server", []string{"token", "list"}, nil, defaultGCPercent, math.MaxInt64, false},
		{"no command", nil, nil, defaultGCPercent, math.MaxInt64, false},
		{"GOGC set", []string{"worker"}, map[string]string{"GOGC": "100"}, 100, memoryBudgets["worker"], true},
		{"GOMEMLIMIT set", []string{"serve"}, map[string]string{"GOMEMLIMIT": "1GiB"}, defaultGCPercent, math.MaxInt64, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			keepGC(t)
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
				if v, ok := c.env[k]; ok {
					t.Setenv(k, v)
				} else {
					unsetenv(t, k)
				}
			}
			stop := tuneGC(c.args)
			defer stop()
			if got := gogc(); got != c.percent {
				t.Errorf("tuneGC(%q): GOGC = %d, want %d", c.args, got, c.percent)
			}
			// At least the budget: more if the tests before left a large heap.
			got := debug.SetMemoryLimit(-1)
			if c.following && (got < c.limit || got == math.MaxInt64) || !c.following && got != c.limit {
				t.Errorf("tuneGC(%q): memory limit = %d, want %d%s", c.args, got, c.limit, map[bool]string{true: " or more"}[c.following])
			}
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ budget, live, beside, want int64 }{
		{64 * mib, 12 * mib, 10 * mib, 64 * mib}, // the read benchmark's heap: the budget
		{64 * mib, 27 * mib, 10 * mib, 64 * mib}, // room to allocate is still what is live
		{64 * mib, 40 * mib, 12 * mib, 92 * mib}, // a big board: twice the live heap
		{48 * mib, 30 * mib, 12 * mib, 72 * mib}, // a thousand listen streams on a front door
	} {
		if got := memoryLimit(c.budget, c.live, c.beside); got != c.want {
			t.Errorf("memoryLimit(%d, %d, %d) = %d MiB, want %d MiB", c.budget/mib, c.live/mib, c.beside/mib, got/mib, c.want/mib)
		}
	}
}

// TestFollowHeap: a live heap larger than the budget raises the limit
// after the next collection, instead of the collector running back to
// back under it.
func TestFollowHeap(t *testing.T) {
	keepGC(t)
	const budget = 1 << 20
	stop := followHeap(budget)
	defer stop()
	live := make([]byte, 64<<20)
	for i := range live {
		live[i] = 1 // resident, as a real heap is
	}
	poll.Until(t, 10*time.Second, "the limit to follow a 64 MiB live heap", func() bool {
		runtime.GC()
		return debug.SetMemoryLimit(-1) >= 2*int64(len(live))
	})
	runtime.KeepAlive(live)
}

package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// defaultGCPercent is Taskwire's GOGC unless the environment sets one.
// A call allocates a lot for its size (JSON, protobuf, SQL rows) on a
// live heap of about ten megabytes, so Go's default of 100 collects very
// often: 400 takes a sixth to a fifth less CPU per call under load.
// Left alone, it also lets the heap grow to five times what is live, and
// to five times a burst of calls in flight: memoryBudgets caps that.
// GOGC=100 restores Go's default.
const defaultGCPercent = 400

// memoryBudgets are the soft memory limits (Go's own memory: heap,
// stacks, the runtime's) of the server commands, and of export and
// import, unless GOMEMLIMIT is set. Under the read benchmark's load GOGC=400 keeps the heap below
// them, so they cost no CPU there and cap the bursts; the limit
// follows a larger live heap (followHeap), so thousands of listen streams
// never make the collector run back to back (at 2,000 streams on a front
// door, a fixed 48 MiB took four times the CPU per call).
var memoryBudgets = map[string]int64{
	"serve":     64 << 20, // front door, worker and NATS
	"frontdoor": 48 << 20,
	"worker":    48 << 20,
	// export and import hold a page or a batch of rows at a time, so
	// their live heap stays near 35 MiB even for a tenant of 100,000
	// tasks; without a limit, GOGC=400 let an import's heap reach 190 MiB.
	"export": 32 << 20,
	"import": 32 << 20,
}

// tuneGC sets Taskwire's defaults for the command args name: GOGC=400
// unless GOGC is set, and for a server command, unless GOMEMLIMIT is set,
// its memory budget as a soft limit that follows the live heap (until
// stop).
func tuneGC(args []string) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || len(args) == 0 {
		return func() {}
	}
	budget, ok := memoryBudgets[args[0]]
	if !ok {
		return func() {}
	}
	return followHeap(budget)
}

// memoryLimit is the soft limit for a live heap of live bytes when the
// runtime holds beside bytes more (stacks, its own data): the budget, or,
// when that would leave less room to allocate than is live, twice the
// live heap (Go's default GOGC=100) and what is beside it.
func memoryLimit(budget, live, beside int64) int64 {
	return max(budget, 2*live+beside)
}

// heapFollower sets the soft memory limit after every collection.
type heapFollower struct {
	budget  int64
	stopped atomic.Bool
	samples []metrics.Sample
}

// followHeap sets the soft memory limit to budget now and after every
// collection moves it to memoryLimit of what the collection left live,
// until the returned stop is called.
func followHeap(budget int64) (stop func()) {
	f := &heapFollower{budget: budget, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}}
	f.adjust()
	f.arm()
	return func() { f.stopped.Store(true) }
}

// gcSentinel is garbage at the next collection, whose cleanup then runs:
// a pointer field keeps it out of the tiny allocator, whose blocks may
// outlive it.
type gcSentinel struct{ _ *byte }

// arm has adjust run once the next collection has ended, and arm again.
func (f *heapFollower) arm() {
	runtime.AddCleanup(&gcSentinel{}, func(f *heapFollower) {
		if f.stopped.Load() {
			return
		}
		f.adjust()
		f.arm()
	}, f)
}

// adjust sets the soft memory limit for the heap the last collection left
// live.
func (f *heapFollower) adjust() {
	metrics.Read(f.samples)
	v := func(i int) int64 { return int64(f.samples[i].Value.Uint64()) }
	beside := v(1) - v(2) - v(3) - v(4) - v(5)
	debug.SetMemoryLimit(memoryLimit(f.budget, v(0), beside))
}

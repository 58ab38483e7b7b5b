package tests

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// callCounts are the counts of one row of TestScaleOut's summary.
type callCounts struct {
	calls, ok, retriable, bad, retries, progress int
}

func (c *callCounts) add(r callRecord) {
	c.calls++
	switch r.outcome {
	case outcomeOK:
		c.ok++
	case outcomeRetriable:
		c.retriable++
	default:
		c.bad++
	}
	if r.attempt > 1 {
		c.retries++
	}
	c.progress += len(r.progress)
}

// logScaleOut prints what TestScaleOut measured: calls by tool and
// outcome, where they went, and the timeline of the kill, so that a run
// in CI shows the numbers as well as the verdict.
func logScaleOut(t *testing.T, calls []callRecord, k *killing) {
	t.Helper()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\tcalls\tok\tfailed-retriable\tfailed-other\tretries\tprogress notifications\t")
	byTool, fronts := map[string]*callCounts{}, make([]callCounts, 2)
	var total callCounts
	for _, c := range calls {
		if byTool[c.tool] == nil {
			byTool[c.tool] = &callCounts{}
		}
		byTool[c.tool].add(c)
		fronts[c.front].add(c)
		total.add(c)
	}
	for _, tool := range slices.Sorted(maps.Keys(byTool)) {
		row(tw, tool, byTool[tool])
	}
	row(tw, "all", &total)
	for i := range fronts {
		row(tw, fmt.Sprintf("via front door %d", i+1), &fronts[i])
	}
	tw.Flush()
	c := carryOn(calls, k.killAt)
	fmt.Fprintf(&b, "load: 8 clients for %v, %.0f calls/s; killed %s after %d calls (%d ok)\n",
		k.loadTime.Round(time.Millisecond), float64(total.calls)/k.loadTime.Seconds(), k.victim.Name, k.callsBefore, k.okBefore)
	fmt.Fprintf(&b, "kill → next success: %v (bound %v); through front door 1: %v, 2: %v; every client's next success: %v (bound %v)\n",
		c.first.Round(time.Microsecond), carryOnBound, c.fronts[0].Round(time.Microsecond), c.fronts[1].Round(time.Microsecond),
		c.every.Round(time.Microsecond), 2*carryOnBound)
	fmt.Fprintf(&b, "progress notifications per import that succeeded (notifications: imports): %v\n", progressCounts(calls))
	fmt.Fprintf(&b, "retriable failures: %s\n", failureWindow(calls, k.killAt))
	fmt.Fprintf(&b, "outage %v; restart → serving a tool call: %v\n", outage, k.servedAt.Sub(k.restartAt).Round(time.Millisecond))
	fmt.Fprintf(&b, "board calls served: %s before it died", k.victim.Name)
	fmt.Fprintf(&b, " %d", k.victim.toolCalls())
	for _, w := range k.workers {
		fmt.Fprintf(&b, "; %s %d", w.Name, w.toolCalls())
	}
	t.Logf("TestScaleOut summary:\n%s", b.String())
}

func row(tw *tabwriter.Writer, name string, c *callCounts) {
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, c.calls, c.ok, c.retriable, c.bad, c.retries, c.progress)
}

// failureWindow says when, relative to kill, the retriable failures came,
// and what they said.
func failureWindow(calls []callRecord, kill time.Time) string {
	var ends []time.Duration
	said := map[string]int{}
	for _, c := range calls {
		if c.outcome == outcomeRetriable {
			ends = append(ends, c.end.Sub(kill))
			said[c.why]++
		}
	}
	if len(ends) == 0 {
		return "none"
	}
	slices.Sort(ends)
	return fmt.Sprintf("%d, from kill+%v to kill+%v, saying (text: calls) %v", len(ends), ends[0].Round(time.Millisecond), ends[len(ends)-1].Round(time.Millisecond), said)
}

// progressCounts counts the successful imports by how many progress
// notifications their streams carried.
func progressCounts(calls []callRecord) map[int]int {
	counts := map[int]int{}
	for _, c := range calls {
		if c.tool == "tasks_import" && c.outcome == outcomeOK {
			counts[len(c.progress)]++
		}
	}
	return counts
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Setup names the script gives; the ratios compare Taskwire's setups with
// the peers'.
const (
	peerMCPGo = "mcp-go"
	peerGoSDK = "go-sdk"
	peerBare  = "bare"
)

// tableCmd prints the records of one or more JSONL files as Markdown.
func tableCmd(args []string) error {
	var recs []Record
	for _, path := range args {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r Record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
			recs = append(recs, r)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return markdown(os.Stdout, recs)
}

// group holds the records of one scenario and setup, in round order.
type group struct {
	scenario, setup string
	recs            []Record
}

// setupOrder is the order of the setups within a scenario, whatever order
// the rounds ran them in: Taskwire's, then the peers', the floor last.
var setupOrder = []string{"taskwire-serve", "taskwire-split", "taskwire-split-postgres", peerMCPGo, peerGoSDK, peerBare}

// groups gathers the records keep keeps by scenario and setup: scenarios in
// the order they first appear, setups within each in setupOrder (others
// after them, as they first appear).
func groups(recs []Record, keep func(Record) bool) []*group {
	var out []*group
	var scenarios []string
	for _, r := range recs {
		if !keep(r) {
			continue
		}
		if !slices.Contains(scenarios, r.Scenario) {
			scenarios = append(scenarios, r.Scenario)
		}
		i := slices.IndexFunc(out, func(g *group) bool { return g.scenario == r.Scenario && g.setup == r.Setup })
		if i < 0 {
			out = append(out, &group{scenario: r.Scenario, setup: r.Setup})
			i = len(out) - 1
		}
		out[i].recs = append(out[i].recs, r)
	}
	rank := func(setup string) int {
		if i := slices.Index(setupOrder, setup); i >= 0 {
			return i
		}
		return len(setupOrder)
	}
	slices.SortStableFunc(out, func(a, b *group) int {
		if c := slices.Index(scenarios, a.scenario) - slices.Index(scenarios, b.scenario); c != 0 {
			return c
		}
		return rank(a.setup) - rank(b.setup)
	})
	return out
}

func (g *group) med(f func(Record) float64) float64 {
	xs := make([]float64, len(g.recs))
	for i, r := range g.recs {
		xs[i] = f(r)
	}
	return median(xs)
}

func (g *group) sum(f func(Record) int) int {
	n := 0
	for _, r := range g.recs {
		n += f(r)
	}
	return n
}

// cpu is the median server CPU per request and, when it includes
// PostgreSQL's backends, their part in brackets.
func (g *group) cpu() string {
	all := fmt.Sprintf("%.0f", g.med(func(r Record) float64 { return r.ServerCPUus }))
	if !slices.ContainsFunc(g.recs, func(r Record) bool { return r.DBBackends > 0 }) {
		return all
	}
	return fmt.Sprintf("%s (pg %.0f)", all, g.med(func(r Record) float64 { return r.DBCPUus }))
}

// dbNote says, for the setups on PostgreSQL, what of PostgreSQL their CPU
// and memory include: the worker's part of it, as SQLite's part is inside
// the worker's process, but not the server's shared processes.
func dbNote(calls []*group) string {
	var counted, not []string
	for _, g := range calls {
		if g.recs[0].DB == "" || slices.Contains(counted, g.setup) || slices.Contains(not, g.setup) {
			continue
		}
		if slices.ContainsFunc(g.recs, func(r Record) bool { return r.DBBackends > 0 }) {
			counted = append(counted, g.setup)
		} else {
			not = append(not, g.setup)
		}
	}
	var note string
	if len(counted) > 0 {
		note += fmt.Sprintf("; on PostgreSQL (%s), also over the backends serving the worker's connections (in brackets: their part), "+
			"not PostgreSQL's WAL writer, checkpointer or autovacuum", strings.Join(counted, ", "))
	}
	if len(not) > 0 {
		note += fmt.Sprintf("; on PostgreSQL (%s), not PostgreSQL's, whose processes this machine does not see", strings.Join(not, ", "))
	}
	if note != "" {
		note += "; peak RSS leaves PostgreSQL out"
	}
	return note
}

func isCall(r Record) bool {
	return !isScale(r) && (r.Tool == "tasks_get" || r.Tool == "tasks_list" || r.Tool == "tasks_create")
}

func markdown(w io.Writer, recs []Record) error {
	calls := groups(recs, isCall)
	rounds := 0
	for _, g := range calls {
		rounds = max(rounds, len(g.recs))
	}
	if len(calls) > 0 {
		fmt.Fprintf(w, "tools/call, median of %d interleaved rounds; CPU is the server processes' user+system time per request, summed over them%s:\n\n", rounds, dbNote(calls))
		fmt.Fprintln(w, "| scenario | server | req/s | p50 ms | p99 ms | p99.9 ms | server CPU µs/req | peak RSS MB | errors |")
		fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, g := range calls {
			fmt.Fprintf(w, "| %s | %s | %.0f | %.2f | %.2f | %.2f | %s | %.1f | %d |\n", g.scenario, g.setup,
				g.med(func(r Record) float64 { return r.RPS }), g.med(func(r Record) float64 { return r.P50Ms }),
				g.med(func(r Record) float64 { return r.P99Ms }), g.med(func(r Record) float64 { return r.P999Ms }),
				g.cpu(), g.med(func(r Record) float64 { return r.PeakRSSMB }),
				g.sum(func(r Record) int { return r.Errors }))
		}
	}
	if imports := groups(recs, func(r Record) bool { return r.Tool == "tasks_import" && !isScale(r) }); len(imports) > 0 {
		fmt.Fprintln(w, "\ntasks_import of 120 tasks with a progressToken (all rounds together; times are medians of the rounds' medians):")
		fmt.Fprintln(w, "\n| server | imports | first progress p50 ms | total p50 ms | total p99 ms | notifications | lost | errors |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, g := range imports {
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %d | %d | %d |\n", g.setup,
				g.sum(func(r Record) int { return r.Requests }), g.med(func(r Record) float64 { return r.FirstProgressMs }),
				g.med(func(r Record) float64 { return r.P50Ms }), g.med(func(r Record) float64 { return r.P99Ms }),
				g.sum(func(r Record) int { return r.Notifications }), g.sum(func(r Record) int { return r.Lost }),
				g.sum(func(r Record) int { return r.Errors }))
		}
	}
	if listens := groups(recs, func(r Record) bool { return r.Streams > 0 }); len(listens) > 0 {
		fmt.Fprintln(w, "\nIdle subscriptions/listen streams held on one front door (resident memory of the front door process, after minus before):")
		fmt.Fprintln(w, "\n| server | streams | RSS before MB | RSS delta MB | KB per stream | errors |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|")
		for _, g := range listens {
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %d |\n", g.setup, g.recs[0].Streams,
				g.med(func(r Record) float64 { return r.RSSMB - r.RSSDeltaMB }), g.med(func(r Record) float64 { return r.RSSDeltaMB }),
				g.med(func(r Record) float64 { return r.PerStreamKB }), g.sum(func(r Record) int { return r.Errors }))
		}
	}
	if len(calls) > 0 {
		ratios(w, calls)
	}
	scaleTables(w, recs)
	return nil
}

// ratios prints, for each tasks_get scenario and Taskwire setup, the median
// over rounds of each round's ratio to the peers, against the targets.
func ratios(w io.Writer, calls []*group) {
	find := func(scenario, setup string) *group {
		i := slices.IndexFunc(calls, func(g *group) bool { return g.scenario == scenario && g.setup == setup })
		if i < 0 {
			return nil
		}
		return calls[i]
	}
	ratio := func(a, b *group, f func(Record) float64) (float64, bool) {
		if a == nil || b == nil {
			return 0, false
		}
		var xs []float64
		for _, ra := range a.recs {
			for _, rb := range b.recs {
				if ra.Round == rb.Round && f(rb) > 0 {
					xs = append(xs, f(ra)/f(rb))
				}
			}
		}
		return median(xs), len(xs) > 0
	}
	cell := func(v float64, ok bool, met func(float64) bool) string {
		if !ok {
			return "–"
		}
		mark := "missed"
		if met(v) {
			mark = "met"
		}
		return fmt.Sprintf("%.2f (%s)", v, mark)
	}
	plain := func(v float64, ok bool) string {
		if !ok {
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	}
	cpu := func(r Record) float64 { return r.ServerCPUus }
	rps := func(r Record) float64 { return r.RPS }
	p99 := func(r Record) float64 { return r.P99Ms }
	atMost := func(x float64) func(float64) bool { return func(v float64) bool { return v <= x } }
	atLeast := func(x float64) func(float64) bool { return func(v float64) bool { return v >= x } }
	fmt.Fprintln(w, "\nTaskwire against the targets and the floor (bare: net/http, encoding/json and the same prepared query), tasks_get and tasks_list: the median over rounds of each round's ratio.")
	fmt.Fprintln(w, "\n| scenario | server | CPU/req ÷ bare | CPU/req ÷ mcp-go (≤ 1) | CPU/req ÷ go-sdk (≤ 0.5) | req/s ÷ bare | req/s ÷ go-sdk (≥ 3 at c16, c64) | p99 ÷ go-sdk (≤ 1) |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|")
	for _, g := range calls {
		if (g.recs[0].Tool != "tasks_get" && g.recs[0].Tool != "tasks_list") || !strings.HasPrefix(g.setup, "taskwire") {
			continue
		}
		mg, gs, bare := find(g.scenario, peerMCPGo), find(g.scenario, peerGoSDK), find(g.scenario, peerBare)
		c0, ok0 := ratio(g, bare, cpu)
		r0, ok5 := ratio(g, bare, rps)
		rpsTarget := atLeast(3)
		if g.recs[0].Concurrency < 16 {
			rpsTarget = func(float64) bool { return true }
		}
		c1, ok1 := ratio(g, mg, cpu)
		c2, ok2 := ratio(g, gs, cpu)
		r, ok3 := ratio(g, gs, rps)
		p, ok4 := ratio(g, gs, p99)
		rcell := cell(r, ok3, rpsTarget)
		if g.recs[0].Concurrency < 16 {
			rcell = fmt.Sprintf("%.2f (no target)", r)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", g.scenario, g.setup, plain(c0, ok0),
			cell(c1, ok1, atMost(1)), cell(c2, ok2, atMost(0.5)), plain(r0, ok5), rcell, cell(p, ok4, atMost(1)))
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// soakWindow is the calls that ended in one window of the run.
type soakWindow struct {
	From      time.Duration `json:"from_ns"`
	To        time.Duration `json:"to_ns"`
	Calls     int           `json:"calls"`
	Errors    int           `json:"errors"`
	ReadP50   float64       `json:"read_p50_ms"`
	ReadP99   float64       `json:"read_p99_ms"`
	CreateP50 float64       `json:"create_p50_ms"`
	CreateP99 float64       `json:"create_p99_ms"`
	ImportP99 float64       `json:"import_p99_ms"`
	Short     int           `json:"imports_short_of_progress"`
	Events    []string      `json:"events,omitempty"`
}

// soakReport is everything the soak found, as soak.json holds it.
type soakReport struct {
	Duration    string            `json:"duration"`
	Load        string            `json:"load"`
	Interrupted bool              `json:"interrupted,omitempty"`
	Stats       soakStats         `json:"stats"`
	Writes      writeCheck        `json:"writes"`
	Kinds       []kindCount       `json:"errors_by_kind"`
	Windows     []soakWindow      `json:"windows"`
	Samples     []procSampleRow   `json:"samples"`
	Events      []soakEvent       `json:"events"`
	Logs        map[string][2]int `json:"log_lines_warn_error"`
	RevokeP50Ms float64           `json:"revoke_refused_p50_ms"`
	RevokeMaxMs float64           `json:"revoke_refused_max_ms"`
	RevokeBound string            `json:"revoke_bound"`
	// ProgressWholeS is how long after NATS was back the last import
	// short of progress ended; -1 when none was, or NATS was not restarted.
	ProgressWholeS float64 `json:"progress_short_until_s_after_nats"`
	Internal       int     `json:"jsonrpc_internal_errors"`
	Hung           int     `json:"hung"`
	// Cut are calls whose connection ended without an answer: no front
	// door is stopped during the soak, so none should be.
	Cut     int      `json:"cut"`
	Died    int      `json:"processes_died"`
	Failed  []string `json:"failed,omitempty"`
	procs   []string
	streams int
}

// readOps are the calls the read latency columns cover.
var readOps = map[string]bool{"tasks_get": true, "tasks_list": true, "tasks_search": true}

func buildSoakReport(c *soakConfig, l *soakLoad, v writeCheck, events []soakEvent, samples []procSampleRow,
	logs map[string][2]int, progressBack time.Duration, died int, interrupted bool) *soakReport {
	l.mu.Lock()
	st := l.st
	l.mu.Unlock()
	l.rec.mu.Lock()
	outs := append([]outcome(nil), l.rec.outs...)
	var kinds []kindCount
	for _, k := range l.rec.kinds {
		kinds = append(kinds, *k)
	}
	l.rec.mu.Unlock()
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].Count != kinds[j].Count {
			return kinds[i].Count > kinds[j].Count
		}
		return kinds[i].Kind+kinds[i].Op < kinds[j].Kind+kinds[j].Op
	})
	r := &soakReport{
		Duration: c.dur.String(), Interrupted: interrupted, Stats: st, Writes: v, Kinds: kinds,
		Samples: samples, Events: events, Logs: logs, Died: died, RevokeBound: c.revokeBound.String(),
		Load: fmt.Sprintf("%d readers (tasks_get, tasks_list, tasks_search; %s between calls), %d writers (tasks_create with an idempotency key; %s between), "+
			"%d importer (tasks_import of %d with a progressToken; %s between), %d listen streams, a token minted, used and revoked every %s",
			c.readers, c.readPause, c.writers, c.writePause, c.importers, c.importTasks, c.importPause, c.streams, c.revokeEvery),
		procs:   []string{"frontdoor-1", "frontdoor-2", "worker-1", "worker-2", "natsd"},
		streams: c.streams,
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].At < events[j].At })
	r.Windows = soakWindows(outs, events, c.window, c.dur)
	for _, k := range kinds {
		switch k.Kind {
		case "JSON-RPC -32603":
			r.Internal += k.Count
		case kindHung:
			r.Hung += k.Count
		case kindTransport:
			r.Cut += k.Count
		}
	}
	lat := append([]time.Duration(nil), st.revokeLat...)
	sortDurations(lat)
	r.RevokeP50Ms = ms(percentile(lat, 0.5))
	if len(lat) > 0 {
		r.RevokeMaxMs = ms(lat[len(lat)-1])
	}
	r.ProgressWholeS = -1
	if progressBack >= 0 {
		r.ProgressWholeS = progressBack.Seconds()
	}
	fail := func(cond bool, format string, args ...any) {
		if cond {
			r.Failed = append(r.Failed, fmt.Sprintf(format, args...))
		}
	}
	fail(v.Lost > 0, "%d acknowledged creates lost", v.Lost)
	fail(v.Duplicated > 0, "%d tasks written twice for one idempotency key", v.Duplicated)
	fail(st.Acked == 0, "no create was acknowledged")
	fail(st.GivenUp > 0, "%d creates still unavailable after a minute of retries", st.GivenUp)
	fail(r.Internal > 0, "%d answers were JSON-RPC -32603", r.Internal)
	fail(r.Hung > 0, "%d calls had no answer in %s", r.Hung, callTimeout)
	fail(r.Cut > 0, "%d calls were cut without an answer though no front door was stopped", r.Cut)
	fail(st.ListenEnded > 0, "%d listen streams were ended though no front door was stopped", st.ListenEnded)
	fail(st.SilentShort > 0, "%d imports succeeded short of progress notifications with no warning", st.SilentShort)
	fail(st.RevokedLate > 0, "%d revoked tokens were still accepted after %s", st.RevokedLate, c.revokeBound)
	fail(st.NewTokenRefused > 0, "%d new tokens were refused before they were revoked", st.NewTokenRefused)
	fail(died > 0, "%d processes exited by themselves", died)
	return r
}

// soakWindows cuts the run into windows of w and sums each one's calls.
func soakWindows(outs []outcome, events []soakEvent, w, dur time.Duration) []soakWindow {
	// Calls that end after the load stopped (a write's retries, the
	// last calls in flight) count in the last window.
	n := max(1, int((dur+w-1)/w))
	wins := make([]soakWindow, n)
	reads := make([][]time.Duration, n)
	creates := make([][]time.Duration, n)
	imports := make([][]time.Duration, n)
	for i := range wins {
		wins[i].From, wins[i].To = time.Duration(i)*w, time.Duration(i+1)*w
	}
	for _, o := range outs {
		i := min(int(o.at/w), n-1)
		win := &wins[i]
		if o.kind != "" {
			win.Errors++
		}
		if o.lat == 0 {
			continue // a stream ending, not a call
		}
		win.Calls++
		if o.short {
			win.Short++
		}
		if o.kind != "" {
			continue
		}
		switch {
		case readOps[o.op]:
			reads[i] = append(reads[i], o.lat)
		case o.op == "tasks_create":
			creates[i] = append(creates[i], o.lat)
		case o.op == "tasks_import":
			imports[i] = append(imports[i], o.lat)
		}
	}
	for i := range wins {
		for _, s := range [][]time.Duration{reads[i], creates[i], imports[i]} {
			sortDurations(s)
		}
		wins[i].ReadP50, wins[i].ReadP99 = ms(percentile(reads[i], 0.5)), ms(percentile(reads[i], 0.99))
		wins[i].CreateP50, wins[i].CreateP99 = ms(percentile(creates[i], 0.5)), ms(percentile(creates[i], 0.99))
		wins[i].ImportP99 = ms(percentile(imports[i], 0.99))
	}
	for _, e := range events {
		i := min(int(e.At/w), n-1)
		what, _, _ := strings.Cut(e.What, ":")
		wins[i].Events = append(wins[i].Events, what)
	}
	return wins
}

// markdown is the report as the tables bench/run prints and keeps.
func (r *soakReport) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Soak: %s on the split setup with PostgreSQL (2 workers, 2 front doors, NATS)\n\n", r.Duration)
	if r.Interrupted {
		p("**Interrupted before its end.**\n\n")
	}
	p("Load through both front doors: %s.\n\n", r.Load)
	st := r.Stats
	p("| check | count | must be |\n|---|--:|---|\n")
	p("| creates acknowledged (of %d; %d after retries with the same key, %d retries in all) | %d | |\n", st.Creates, st.AckedAfterRtry, st.Retries, st.Acked)
	p("| acknowledged creates lost (not in the database with their ref) | %d | 0 |\n", r.Writes.Lost)
	p("| tasks written twice for one idempotency key | %d | 0 |\n", r.Writes.Duplicated)
	p("| creates unavailable after a minute of retries | %d | 0 |\n", st.GivenUp)
	p("| creates refused (not retried) | %d | |\n", st.Refused)
	p("| creates written though never acknowledged | %d | |\n", r.Writes.Unacknowledged)
	p("| answers JSON-RPC -32603 | %d | 0 |\n", r.Internal)
	p("| calls with no answer in %s | %d | 0 |\n", callTimeout, r.Hung)
	p("| calls cut without an answer (no front door is stopped) | %d | 0 |\n", r.Cut)
	p("| imports (failed) | %d (%d) | |\n", st.Imports, st.ImportsFailed)
	p("| progress notifications received / expected of the imports that succeeded | %d / %d | |\n", st.Notifications, st.Expected)
	p("| imports that succeeded short of progress (of those, with no warning) | %d (%d) | (0) |\n", st.ShortImports, st.SilentShort)
	if r.ProgressWholeS >= 0 {
		p("| an import ended with all its progress again, after NATS was back | %.1f s | |\n", r.ProgressWholeS)
	}
	p("| warnings (notifications/message) with the imports | %d | |\n", st.Warnings)
	p("| listen streams opened (%d held throughout) / notifications on them | %d / %d | |\n", r.streams, st.ListenOpened, st.ListenNotified)
	p("| listen streams ended by the server (no front door is stopped) | %d | 0 |\n", st.ListenEnded)
	p("| tokens revoked and refused by the other front door (p50 / slowest ms) | %d (%.0f / %.0f) | |\n", st.Revocations-st.RevokeUnchecked, r.RevokeP50Ms, r.RevokeMaxMs)
	p("| revoked tokens still accepted after %s | %d | 0 |\n", r.RevokeBound, st.RevokedLate)
	p("| revoked tokens neither refused nor accepted (the other front door unavailable) | %d | |\n", st.RevokeUnchecked)
	p("| processes that exited by themselves | %d | 0 |\n", r.Died)
	if st.FirstWarning != "" {
		p("\nFirst warning with an import: `%s`\n", st.FirstWarning)
	}
	if len(r.Writes.LostExamples) > 0 {
		p("\nLost, for example: %s\n", strings.Join(r.Writes.LostExamples, ", "))
	}

	p("\nWhat the soak did and saw:\n\n| at | event |\n|---|---|\n")
	for _, e := range r.Events {
		p("| %s | %s |\n", clock(e.At), e.What)
	}

	p("\nErrors by kind (an unavailable answer is a tool result with isError saying to try again):\n\n")
	p("| kind | call | count | first at | last at | first message |\n|---|---|--:|--:|--:|---|\n")
	if len(r.Kinds) == 0 {
		p("| none | | 0 | | | |\n")
	}
	for _, k := range r.Kinds {
		p("| %s | %s | %d | %s | %s | %s |\n", k.Kind, k.Op, k.Count, clock(k.FirstAt), clock(k.LastAt), strings.ReplaceAll(k.First, "|", "\\|"))
	}

	p("\nLatency of the calls that succeeded, per window (ms; reads are tasks_get, tasks_list and tasks_search):\n\n")
	p("| window | calls | errors | read p50 | read p99 | create p50 | create p99 | import p99 | imports short of progress | events |\n")
	p("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, w := range r.Windows {
		p("| %s–%s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.0f | %d | %s |\n", clock(w.From), clock(w.To), w.Calls, w.Errors,
			w.ReadP50, w.ReadP99, w.CreateP50, w.CreateP99, w.ImportP99, w.Short, strings.Join(w.Events, "; "))
	}

	p("\nResident memory (MB) and goroutines of each process (a worker's restart starts it afresh):\n\n| at |")
	for _, name := range r.procs {
		p(" %s |", name)
	}
	p("\n|---|%s\n", strings.Repeat("--:|", len(r.procs)))
	for _, s := range r.Samples {
		p("| %s |", clock(s.At))
		for _, name := range r.procs {
			st, ok := s.Procs[name]
			switch {
			case !ok:
				p(" - |")
			case st.Goroutines < 0:
				p(" %.1f |", st.RSSMB)
			default:
				p(" %.1f / %d |", st.RSSMB, st.Goroutines)
			}
		}
		p("\n")
	}
	p("\nLog lines at warn / error:")
	for _, name := range r.procs {
		c := r.Logs[name]
		p(" %s %d / %d;", name, c[0], c[1])
	}
	p("\n")
	if len(r.Failed) > 0 {
		p("\n**Failed:** %s.\n", strings.Join(r.Failed, "; "))
	} else {
		p("\nPassed: nothing acknowledged was lost or written twice, no -32603, nothing hung or cut, no progress lost silently, every revoked token refused in time.\n")
	}
	return b.String()
}

func (r *soakReport) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

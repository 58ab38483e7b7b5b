package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// soakConfig is what `load soak` is told.
type soakConfig struct {
	taskwire, natsd, db string
	// dir holds signing.key, internal.key and operator.secret, and NATS's
	// store; out takes the processes' logs, soak.json and soak.md.
	dir, out string
	base     int

	dur, window, workerEvery, natsAt     time.Duration
	readers, writers, importers, streams int
	importTasks                          int
	readPause, writePause, importPause   time.Duration
	revokeEvery, revokeBound             time.Duration
}

// soakEvent is something the soak did to the deployment, or saw it do.
type soakEvent struct {
	At   time.Duration `json:"at_ns"`
	What string        `json:"what"`
}

// eventLog keeps the events in order.
type eventLog struct {
	start time.Time
	mu    sync.Mutex
	list  []soakEvent
}

func (e *eventLog) add(format string, args ...any) {
	e.addAt(time.Now(), format, args...)
}

// addAt records an event that began at t.
func (e *eventLog) addAt(t time.Time, format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := soakEvent{At: t.Sub(e.start), What: fmt.Sprintf(format, args...)}
	e.list = append(e.list, ev)
	fmt.Printf("soak %s: %s\n", clock(ev.At), ev.What)
}

func (e *eventLog) events() []soakEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]soakEvent(nil), e.list...)
}

// clock formats an offset into the run as m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// chaosStep is one fault the soak injects: a worker stopped with sig and
// started again, or (nats) the NATS server killed and started 2 s later.
type chaosStep struct {
	at     time.Duration
	nats   bool
	worker int
	sig    syscall.Signal
}

// chaosPlan restarts a worker every `every` (the two in turn, SIGTERM and
// SIGKILL so that each worker gets both: TERM w1, KILL w2, KILL w1, TERM
// w2, …) up to half an interval before the end, and NATS once at natsAt.
func chaosPlan(dur, every, natsAt time.Duration) []chaosStep {
	var plan []chaosStep
	if every > 0 {
		for k := 1; time.Duration(k)*every <= dur-every/2; k++ {
			sig := syscall.SIGKILL
			if i := (k - 1) % 4; i == 0 || i == 3 {
				sig = syscall.SIGTERM
			}
			plan = append(plan, chaosStep{at: time.Duration(k) * every, worker: (k - 1) % 2, sig: sig})
		}
	}
	if natsAt > 0 && natsAt < dur {
		plan = append(plan, chaosStep{at: natsAt, nats: true})
	}
	sort.Slice(plan, func(i, j int) bool { return plan[i].at < plan[j].at })
	return plan
}

// soakDefaults fills in what depends on the duration: 10-second windows
// and a worker restart every third of the run for runs of up to five
// minutes, else one-minute windows and a restart every two minutes; NATS
// in the middle, moved off a worker restart.
func soakDefaults(c *soakConfig) {
	if c.window == 0 {
		c.window = time.Minute
		if c.dur <= 5*time.Minute {
			c.window = 10 * time.Second
		}
	}
	if c.workerEvery == 0 {
		c.workerEvery = 2 * time.Minute
		if c.dur <= 5*time.Minute {
			c.workerEvery = c.dur / 3
		}
	}
	if c.natsAt == 0 {
		c.natsAt = c.dur / 2
		if c.workerEvery > 0 {
			off := c.natsAt % c.workerEvery
			if off < c.workerEvery/4 || off > c.workerEvery-c.workerEvery/4 {
				c.natsAt += c.workerEvery / 2
			}
		}
	}
}

// procSampleRow is every process's memory and goroutines at one time.
type procSampleRow struct {
	At    time.Duration        `json:"at_ns"`
	Procs map[string]procStats `json:"procs"`
}

// soakCmd runs the soak: it starts the split setup on PostgreSQL, drives a
// mixed load through both front doors while it restarts workers and NATS,
// then checks the database for every acknowledged write and reports.
func soakCmd(args []string) error {
	var c soakConfig
	fs := flag.NewFlagSet("soak", flag.ExitOnError)
	fs.StringVar(&c.taskwire, "taskwire", "", "the taskwire binary")
	fs.StringVar(&c.natsd, "natsd", "", "the natsd binary (bench/cmd/natsd)")
	fs.StringVar(&c.db, "db", "", "the PostgreSQL database (postgres://…): migrated, then the setup's own")
	fs.StringVar(&c.dir, "dir", "", "directory holding signing.key, internal.key and operator.secret")
	fs.StringVar(&c.out, "out", "", "directory for the logs, soak.json and soak.md")
	fs.IntVar(&c.base, "port-base", 18400, "the processes listen on this port and the next 8")
	fs.DurationVar(&c.dur, "d", time.Minute, "how long the load runs")
	fs.DurationVar(&c.window, "window", 0, "latency window (default 10 s up to 5 minutes, else 1 minute); memory is sampled at each")
	fs.DurationVar(&c.workerEvery, "worker-every", 0, "restart a worker this often (default a third of runs up to 5 minutes, else 2 minutes); negative: never")
	fs.DurationVar(&c.natsAt, "nats-at", 0, "kill NATS this far into the run and start it 2 s later (default the middle); negative: never")
	fs.IntVar(&c.readers, "readers", 4, "callers of tasks_get, tasks_list and tasks_search")
	fs.IntVar(&c.writers, "writers", 2, "callers of tasks_create with idempotency keys")
	fs.IntVar(&c.importers, "importers", 1, "callers of tasks_import with a progressToken")
	fs.IntVar(&c.streams, "streams", 20, "subscriptions/listen streams held open, half on each front door")
	fs.IntVar(&c.importTasks, "import-tasks", 40, "drafts per tasks_import")
	fs.DurationVar(&c.readPause, "read-pause", 20*time.Millisecond, "each reader's pause between calls")
	fs.DurationVar(&c.writePause, "write-pause", 100*time.Millisecond, "each writer's pause between creates")
	fs.DurationVar(&c.importPause, "import-pause", 2*time.Second, "each importer's pause between imports")
	fs.DurationVar(&c.revokeEvery, "revoke-every", 5*time.Second, "mint, use and revoke a token this often; 0: never")
	fs.DurationVar(&c.revokeBound, "revoke-bound", 5*time.Second, "a revoked token must be refused by the other front door within this")
	fs.Parse(args)
	if c.taskwire == "" || c.natsd == "" || c.db == "" || c.dir == "" || c.out == "" {
		return errors.New("soak needs -taskwire, -natsd, -db, -dir and -out")
	}
	soakDefaults(&c)
	secretBytes, err := os.ReadFile(filepath.Join(c.dir, "operator.secret"))
	if err != nil {
		return err
	}
	secret := strings.TrimSpace(string(secretBytes))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := newSoakDeployment(&c)
	ev := &eventLog{start: time.Now()}
	var diedMu sync.Mutex
	died := 0
	onDied := func(p *proc, err error) {
		diedMu.Lock()
		died++
		diedMu.Unlock()
		ev.add("%s exited by itself: %v (see %s)", p.name, err, p.logPath)
	}
	fmt.Printf("soak: migrating and starting NATS, 2 workers and 2 front doors on ports %d-%d\n", c.base, c.base+soakPorts-1)
	if err := d.up(&c, onDied); err != nil {
		d.down()
		return err
	}
	defer d.down()
	tenant := "soak-" + strconv.FormatInt(time.Now().Unix()%1e8, 36)
	var token string
	for try := 0; ; try++ {
		if token, err = createTenant(d.urls[0], secret, tenant); err == nil || try == 20 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		return err
	}

	l := newSoakLoad(&c, d.urls, secret, tenant, token)
	ev.start = l.rec.start
	fmt.Printf("soak: %s of load (%d readers, %d writers, %d importer, %d listen streams, a revocation every %s); "+
		"a worker restarted every %s, NATS at %s\n", c.dur, c.readers, c.writers, c.importers, c.streams, c.revokeEvery,
		c.workerEvery, clock(c.natsAt))
	loadCtx, cancel := context.WithTimeout(ctx, c.dur)
	defer cancel()

	var samplesMu sync.Mutex
	var samples []procSampleRow
	sample := func() {
		row := procSampleRow{At: time.Since(l.rec.start), Procs: map[string]procStats{}}
		for _, p := range d.all() {
			if s, err := readStats(p); err == nil {
				row.Procs[p.name] = s
			}
		}
		samplesMu.Lock()
		samples = append(samples, row)
		samplesMu.Unlock()
	}
	var bg sync.WaitGroup
	bg.Go(func() {
		sample()
		t := time.NewTicker(c.window)
		defer t.Stop()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-t.C:
				sample()
			}
		}
	})
	var progressBack time.Duration = -1
	bg.Go(func() {
		for _, step := range chaosPlan(c.dur, c.workerEvery, c.natsAt) {
			if !pause(loadCtx, step.at-time.Since(l.rec.start)) {
				return
			}
			if step.nats {
				progressBack = restartNATS(d, l, ev)
			} else {
				restartWorker(d, step.worker, step.sig, ev)
			}
		}
	})
	l.run(loadCtx)
	bg.Wait()
	interrupted := ctx.Err() != nil
	sample()

	fmt.Println("soak: checking every acknowledged create in the database")
	vctx, vcancel := context.WithTimeout(context.Background(), time.Minute)
	defer vcancel()
	v, err := verifyWrites(vctx, c.db, l.createPrefix(), l.acked)
	if err != nil {
		return fmt.Errorf("checking the database: %w", err)
	}
	d.down()
	logs := map[string][2]int{}
	for _, p := range d.all() {
		w, e := logCounts(p.logPath)
		logs[p.name] = [2]int{w, e}
	}
	rep := buildSoakReport(&c, l, v, ev.events(), samples, logs, progressBack, died, interrupted)
	md := rep.markdown()
	fmt.Print("\n" + md)
	if err := os.WriteFile(filepath.Join(c.out, "soak.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := rep.writeJSON(filepath.Join(c.out, "soak.json")); err != nil {
		return err
	}
	if len(rep.Failed) > 0 {
		return fmt.Errorf("the soak failed: %s", strings.Join(rep.Failed, "; "))
	}
	return nil
}

// restartWorker stops worker i with sig once the other worker is ready,
// starts it again at once, and records how long it took to be ready.
func restartWorker(d *soakDeployment, i int, sig syscall.Signal, ev *eventLog) {
	w, other := d.workers[i], d.workers[1-i]
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := waitReady(wctx, other.ready); err != nil {
		ev.add("%s was not ready before %s's restart: %v", other.name, w.name, err)
	}
	start := time.Now()
	exit := w.stop(sig, 30*time.Second)
	if err := w.start(); err != nil {
		ev.addAt(start, "%s %s: could not start it again: %v", w.name, sigName(sig), err)
		return
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	if _, err := waitReady(rctx, w.ready); err != nil {
		ev.addAt(start, "%s %s: started again but %v", w.name, sigName(sig), err)
		return
	}
	ev.addAt(start, "%s %s: exited in %.1f s, ready again %.1f s after the signal", w.name, sigName(sig),
		exit.Seconds(), time.Since(start).Seconds())
}

// restartNATS kills the NATS server, makes an import with progress while it
// is down, starts it on the same port 2 s after the kill, and records how
// long every worker and front door took to be ready again and how long
// until an import brought all its progress notifications again (imports
// every 250 ms until one does, for up to 30 s); it returns that time, or
// -1.
func restartNATS(d *soakDeployment, l *soakLoad, ev *eventLog) time.Duration {
	start := time.Now()
	d.nats.stop(syscall.SIGKILL, 5*time.Second)
	var during string
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(300 * time.Millisecond)
		during = describeImport(l.importCall(l.calls[0]))
	})
	time.Sleep(2*time.Second - time.Since(start))
	if err := d.nats.start(); err != nil {
		ev.addAt(start, "natsd SIGKILL: could not start it again: %v", err)
		return -1
	}
	back := time.Now()
	var urls []string
	for _, p := range d.all() {
		if p.ready != "" {
			urls = append(urls, p.ready)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	took, err := waitReady(ctx, urls...)
	ready := fmt.Sprintf("every worker and front door ready %.1f s after that", took.Seconds())
	if err != nil {
		ready = fmt.Sprintf("the workers and front doors were %v", err)
	}
	wg.Wait()
	whole := time.Duration(-1)
	short := 0
	for n := 0; time.Since(back) < 30*time.Second; n++ {
		res, err := l.importCall(l.calls[n%len(l.calls)])
		if err == nil && res.lost <= 0 {
			whole = time.Since(back)
			break
		}
		short++
		time.Sleep(250 * time.Millisecond)
	}
	progress := fmt.Sprintf("an import ended with all its progress %.1f s after NATS was back (%d before it did not)", whole.Seconds(), short)
	if whole < 0 {
		progress = fmt.Sprintf("no import brought all its progress in the 30 s after NATS was back (%d tried)", short)
	}
	ev.addAt(start, "natsd SIGKILL: started again 2 s later; %s; an import while it was down: %s; %s", ready, during, progress)
	return whole
}

func sigName(sig syscall.Signal) string {
	if sig == syscall.SIGKILL {
		return "SIGKILL"
	}
	return "SIGTERM"
}

// writeCheck is what the database holds of the creates the soak made.
type writeCheck struct {
	// Found is how many tasks carry the run's create titles.
	Found int `json:"found"`
	// Lost are acknowledged creates with no task of that title and ref;
	// Duplicated the tasks beyond the first of one title (one key);
	// Unacknowledged the titles written though no answer acknowledged them
	// (a write given up or refused whose first attempt committed).
	Lost           int      `json:"lost"`
	LostExamples   []string `json:"lost_examples,omitempty"`
	Duplicated     int      `json:"duplicated"`
	Unacknowledged int      `json:"unacknowledged"`
}

// verifyWrites reads every task whose title starts with prefix from the
// database and compares them with acked (title → ref).
func verifyWrites(ctx context.Context, url, prefix string, acked map[string]string) (writeCheck, error) {
	var v writeCheck
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return v, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT title, number FROM tasks WHERE title LIKE $1", prefix+"%")
	if err != nil {
		return v, err
	}
	have := map[string][]int{}
	for rows.Next() {
		var title string
		var number int
		if err := rows.Scan(&title, &number); err != nil {
			return v, err
		}
		have[title] = append(have[title], number)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	return compareWrites(have, acked), nil
}

// compareWrites counts the acknowledged creates missing from have (title
// → task numbers), the titles held more than once and those held but never
// acknowledged.
func compareWrites(have map[string][]int, acked map[string]string) writeCheck {
	var v writeCheck
	for _, ns := range have {
		v.Found += len(ns)
	}
	for title, ref := range acked {
		found := false
		for _, n := range have[title] {
			found = found || "T-"+strconv.Itoa(n) == ref
		}
		if !found {
			v.Lost++
			if len(v.LostExamples) < 5 {
				v.LostExamples = append(v.LostExamples, fmt.Sprintf("%s %q", ref, title))
			}
		}
	}
	for title, ns := range have {
		v.Duplicated += len(ns) - 1
		if _, ok := acked[title]; !ok {
			v.Unacknowledged++
		}
	}
	return v
}

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one server process of the soak's deployment, which it starts,
// kills and starts again with the same arguments.
type proc struct {
	name    string
	argv    []string
	logPath string
	// ready is the URL of its /readyz, metrics of its /metrics; empty for
	// natsd, which serves neither.
	ready, metrics string
	// addr is where it accepts connections once started.
	addr string

	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{}
	stopping bool
	// died is called when the process exits without being told to.
	died func(p *proc, err error)
}

// start starts p and returns once it accepts connections on p.addr.
func (p *proc) start() error {
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// The processes die with the driver, however it ends, and a Ctrl-C
	// at the terminal stops the driver (which then reports) and not them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done, p.stopping = cmd, done, false
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		told := p.stopping
		p.mu.Unlock()
		close(done)
		if !told && p.died != nil {
			p.died(p, err)
		}
	}()
	if err := waitListening(p.addr, done, 30*time.Second); err != nil {
		return fmt.Errorf("%s: %w (its log: %s)", p.name, err, p.logPath)
	}
	return nil
}

func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// stop sends sig and waits up to wait for the process to exit, then kills
// it; it returns how long the exit took.
func (p *proc) stop(sig syscall.Signal, wait time.Duration) time.Duration {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.stopping = true
	p.mu.Unlock()
	if cmd == nil {
		return 0
	}
	start := time.Now()
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		<-done
	}
	return time.Since(start)
}

// waitListening polls addr until it accepts a connection, the process
// exits (done closes) or timeout passes.
func waitListening(addr string, done <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return errors.New("exited before listening on " + addr)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not listening on %s after %s", addr, timeout)
}

// probeClient asks the probes and metrics: short timeouts, its own
// connections.
var probeClient = &http.Client{Timeout: 2 * time.Second}

// isReady reports whether url (a /readyz) answers 200.
func isReady(url string) bool {
	resp, err := probeClient.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// waitReady polls every url until all answer 200 or ctx ends; it returns
// how long that took.
func waitReady(ctx context.Context, urls ...string) (time.Duration, error) {
	start := time.Now()
	for {
		all := true
		for _, u := range urls {
			if !isReady(u) {
				all = false
				break
			}
		}
		if all {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("not ready after %s", time.Since(start).Round(time.Millisecond))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// procStats is one reading of a process's memory and goroutines.
type procStats struct {
	RSSMB      float64 `json:"rss_mb"`
	Goroutines int     `json:"goroutines"` // -1 when it serves no metrics
}

// readStats scrapes p's /metrics for go_goroutines and
// process_resident_memory_bytes; for a process without metrics it reads
// the resident set from /proc.
func readStats(p *proc) (procStats, error) {
	s := procStats{Goroutines: -1}
	if p.metrics == "" {
		rss, _, err := readStatus(p.pid())
		s.RSSMB = float64(rss) / 1024
		return s, err
	}
	resp, err := probeClient.Get(p.metrics)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("%s: HTTP %d", p.metrics, resp.StatusCode)
	}
	return parseMetrics(bufio.NewScanner(resp.Body))
}

// parseMetrics picks go_goroutines and process_resident_memory_bytes out of
// Prometheus's text format.
func parseMetrics(sc *bufio.Scanner) (procStats, error) {
	s := procStats{Goroutines: -1}
	found := 0
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			s.Goroutines = int(v)
			found++
		case "process_resident_memory_bytes":
			s.RSSMB = v / (1 << 20)
			found++
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if found < 2 {
		return s, errors.New("metrics lack go_goroutines or process_resident_memory_bytes")
	}
	return s, nil
}

// logCounts counts the lines of a process's log at level WARN and ERROR
// (slog's text and JSON forms).
func logCounts(path string) (warn, errs int) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "level=ERROR"), strings.Contains(line, `"level":"ERROR"`):
			errs++
		case strings.Contains(line, "level=WARN"), strings.Contains(line, `"level":"WARN"`):
			warn++
		}
	}
	return warn, errs
}

// soakDeployment is the split setup the soak drives: NATS, two workers and
// two front doors on one PostgreSQL database.
type soakDeployment struct {
	nats    *proc
	workers []*proc
	fronts  []*proc
	// urls are the front doors' base URLs; the first is the public URL.
	urls []string
}

func (d *soakDeployment) all() []*proc {
	return append(append([]*proc{d.nats}, d.workers...), d.fronts...)
}

// newSoakDeployment lays out the processes on the ports from base: NATS,
// then each worker's gRPC and HTTP, then each front door's HTTP and
// metrics.
func newSoakDeployment(c *soakConfig) *soakDeployment {
	addr := func(n int) string { return "127.0.0.1:" + strconv.Itoa(c.base+n) }
	logs := filepath.Join(c.out, "logs")
	d := &soakDeployment{}
	natsURL := "nats://" + addr(0)
	d.nats = &proc{name: "natsd", addr: addr(0), logPath: filepath.Join(logs, "natsd.log"),
		argv: []string{c.natsd, "-port", strconv.Itoa(c.base), "-store", filepath.Join(c.dir, "nats")}}
	public := "http://" + addr(5)
	shared := []string{"--nats", natsURL, "--public-url", public, "--signing-key", filepath.Join(c.dir, "signing.key"),
		"--internal-key-file", filepath.Join(c.dir, "internal.key"), "--log-level", "warn"}
	var grpcs []string
	for i := range 2 {
		g, h := addr(1+2*i), addr(2+2*i)
		grpcs = append(grpcs, g)
		d.workers = append(d.workers, &proc{name: fmt.Sprintf("worker-%d", i+1), addr: g,
			logPath: filepath.Join(logs, fmt.Sprintf("worker-%d.log", i+1)),
			ready:   "http://" + h + "/readyz", metrics: "http://" + h + "/metrics",
			argv: append([]string{c.taskwire, "worker", "--db", c.db, "--listen", g, "--http", h, "--quota-tasks", "0"}, shared...)})
	}
	for i := range 2 {
		a, m := addr(5+2*i), addr(6+2*i)
		d.urls = append(d.urls, "http://"+a)
		d.fronts = append(d.fronts, &proc{name: fmt.Sprintf("frontdoor-%d", i+1), addr: a,
			logPath: filepath.Join(logs, fmt.Sprintf("frontdoor-%d.log", i+1)),
			ready:   "http://" + a + "/readyz", metrics: "http://" + m + "/metrics",
			argv: append([]string{c.taskwire, "frontdoor", "--addr", a, "--metrics-addr", m, "--workers", strings.Join(grpcs, ","),
				"--operator-secret-file", filepath.Join(c.dir, "operator.secret"),
				"--rate-token", "0", "--rate-tenant", "0", "--listen-per-token", "0", "--listen-per-tenant", "0",
				"--admin-rate-credential", "0", "--admin-rate-tenant", "0"}, shared...)})
	}
	return d
}

// soakPorts is how many ports from the base the deployment takes.
const soakPorts = 9

// up migrates the database and starts every process, each once it can
// reach what it needs.
func (d *soakDeployment) up(c *soakConfig, died func(*proc, error)) error {
	if err := os.MkdirAll(filepath.Join(c.out, "logs"), 0o755); err != nil {
		return err
	}
	out, err := exec.Command(c.taskwire, "migrate", "--db", c.db).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskwire migrate: %w: %s", err, out)
	}
	for _, p := range d.all() {
		p.died = died
		if err := p.start(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var urls []string
	for _, p := range d.all() {
		if p.ready != "" {
			urls = append(urls, p.ready)
		}
	}
	_, err = waitReady(ctx, urls...)
	return err
}

// down stops every process with SIGTERM, front doors first.
func (d *soakDeployment) down() {
	ps := d.all()
	for i := len(ps) - 1; i >= 0; i-- {
		ps[i].stop(syscall.SIGTERM, 20*time.Second)
	}
}

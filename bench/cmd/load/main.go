// Command load drives the benchmark: it calls one MCP endpoint at a fixed
// concurrency for a fixed time and records throughput, latency and the
// server processes' CPU and memory, read from /proc.
//
//	load run    -setup S -scenario N -url U -token T -pids P [-pg DB] -tool tasks_get -c 16 -d 5s
//	load import -setup S -url U -token T -pids P -tasks 120 -c 2 -d 5s
//	load listen -setup S -url U -token T -pids P -streams 1000
//	load seed   -url U -token T -tasks 1000 [-open]
//	load tenants -url U -operator-secret F -tenants 1000 -tasks 100 -tokens-out F
//	load table  results.jsonl
//	load soak   -taskwire BIN -natsd BIN -db postgres://… -dir KEYS -out DIR -d 30m
//
// Each run appends one JSON record to -out; table turns the records into
// Markdown, taking the median over rounds.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// Record is one run of one scenario against one setup.
type Record struct {
	Time        string `json:"time"`
	Round       int    `json:"round"`
	Scenario    string `json:"scenario"`
	Setup       string `json:"setup"`
	Tool        string `json:"tool,omitempty"`
	Concurrency int    `json:"concurrency,omitempty"`
	// Size is the open tasks on the board a scale run measured, or, with
	// Tenants, on each tenant's board; 0 outside scale runs.
	Size       int     `json:"size,omitempty"`
	Tenants    int     `json:"tenants,omitempty"`
	Seconds    float64 `json:"seconds"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	RPS        float64 `json:"rps"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p999_ms"`
	// ServerCPUus is the server processes' CPU time per request, summed over
	// them, in microseconds; LoadCPUus is the load generator's own.
	ServerCPUus float64 `json:"server_cpu_us_per_req"`
	LoadCPUus   float64 `json:"load_cpu_us_per_req"`
	PeakRSSMB   float64 `json:"peak_rss_mb"`
	RSSMB       float64 `json:"rss_mb"`
	// DB is "postgres" when the setup's worker runs on PostgreSQL (-pg).
	// DBCPUus is the part of ServerCPUus its backends spent, read from
	// DBBackends processes; DBBackends is 0 when PostgreSQL is not a
	// process of this machine, so its CPU is not counted. Its memory never
	// is: its shared buffers show in every backend's resident set.
	DB         string  `json:"db,omitempty"`
	DBCPUus    float64 `json:"db_cpu_us_per_req,omitempty"`
	DBBackends int     `json:"db_backends,omitempty"`
	// tasks_import with progress.
	FirstProgressMs float64 `json:"first_progress_ms,omitempty"`
	Notifications   int     `json:"notifications,omitempty"`
	Lost            int     `json:"notifications_lost,omitempty"`
	// subscriptions/listen.
	Streams     int     `json:"streams,omitempty"`
	RSSDeltaMB  float64 `json:"rss_delta_mb,omitempty"`
	PerStreamKB float64 `json:"per_stream_kb,omitempty"`
}

// common is the flags every run takes.
type common struct {
	setup, scenario, url, token, tokens, pids, out, pg string
	round, size, tenants                               int
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.setup, "setup", "", "name of the server setup")
	fs.StringVar(&c.scenario, "scenario", "", "name of the scenario")
	fs.StringVar(&c.url, "url", "", "MCP endpoint")
	fs.StringVar(&c.token, "token", "", "bearer token (none for the peers)")
	fs.StringVar(&c.pids, "pids", "", "comma-separated pids of the setup's server processes")
	fs.StringVar(&c.out, "out", "", "append the JSON record to this file")
	fs.IntVar(&c.round, "round", 0, "round number, for the record")
	fs.StringVar(&c.tokens, "tokens", "", "a file of bearer tokens, one a line: each call uses one at random (many tenants)")
	fs.IntVar(&c.size, "size", 0, "open tasks on the board (per tenant with -tenants), for a scale run's record")
	fs.IntVar(&c.tenants, "tenants", 0, "tenants the tokens belong to, for a scale run's record")
	fs.StringVar(&c.pg, "pg", "", "the PostgreSQL database the setup's worker alone uses: its backends' CPU is added to the server's")
}

// client is the client the flags describe, for conns connections.
func (c *common) client(conns int) (*client, error) {
	cl := newClient(c.url, c.token, conns)
	if c.tokens == "" {
		return cl, nil
	}
	b, err := os.ReadFile(c.tokens)
	if err != nil {
		return nil, err
	}
	cl.tokens = strings.Fields(string(b))
	if len(cl.tokens) == 0 {
		return nil, fmt.Errorf("%s holds no tokens", c.tokens)
	}
	return cl, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: load run|import|listen|seed|tenants|table|soak …")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "import":
		err = importCmd(os.Args[2:])
	case "listen":
		err = listenCmd(os.Args[2:])
	case "seed":
		err = seedCmd(os.Args[2:])
	case "tenants":
		err = tenantsCmd(os.Args[2:])
	case "table":
		err = tableCmd(os.Args[2:])
	case "soak":
		err = soakCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// write prints a one-line summary and appends r to path.
func write(path string, r Record) error {
	r.Time = time.Now().UTC().Format(time.RFC3339)
	fmt.Printf("%-15s %-12s req=%-7d err=%-4d %8.0f req/s p50=%6.2fms p99=%7.2fms p99.9=%7.2fms cpu=%6.0fµs/req peak=%5.1fMB",
		r.Setup, r.Scenario, r.Requests, r.Errors, r.RPS, r.P50Ms, r.P99Ms, r.P999Ms, r.ServerCPUus, r.PeakRSSMB)
	if r.Notifications > 0 || r.Lost > 0 {
		fmt.Printf(" first-progress=%.2fms notifications=%d lost=%d", r.FirstProgressMs, r.Notifications, r.Lost)
	}
	if r.Streams > 0 {
		fmt.Printf(" streams=%d %.1fKB/stream", r.Streams, r.PerStreamKB)
	}
	if r.FirstError != "" {
		fmt.Printf(" first error: %s", r.FirstError)
	}
	fmt.Println()
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	return json.NewEncoder(f).Encode(r)
}

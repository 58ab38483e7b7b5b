package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dbBackends reads the CPU time of the PostgreSQL backends serving a
// setup's worker: on SQLite that work runs inside the worker's own process
// and is counted, so a setup on PostgreSQL is charged for it too. The
// database is the setup's own, so every client backend on it but ours
// serves the worker.
type dbBackends struct {
	conn *pgx.Conn
	// local is false when PostgreSQL is not a process of this machine
	// (another host, a container): its backends' CPU cannot be read.
	local bool
}

// backendsQuery lists the backends serving the database's other connections.
const backendsQuery = `SELECT pid FROM pg_stat_activity
	WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`

// openDBBackends connects to the database at url; nil for no url.
func openDBBackends(ctx context.Context, url string) (*dbBackends, error) {
	if url == "" {
		return nil, nil
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("-pg: %w", err)
	}
	var own int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&own); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("-pg: %w", err)
	}
	// Our own backend lives as long as conn: if /proc does not show it as
	// PostgreSQL's, no pid the database names is this machine's.
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", own))
	b := &dbBackends{conn: conn, local: err == nil && strings.TrimSpace(string(comm)) == "postgres"}
	if !b.local {
		fmt.Fprintln(os.Stderr, "load: PostgreSQL's backends are not processes of this machine: their CPU is not counted")
	}
	return b, nil
}

func (b *dbBackends) close() {
	if b != nil {
		b.conn.Close(context.Background())
	}
}

// dbSample is the CPU time of each backend, by pid, at one time.
type dbSample struct {
	on, local bool
	cpu       map[int]time.Duration
}

// sample reads the backends' CPU; a zero dbSample for no database.
func (b *dbBackends) sample(ctx context.Context) (dbSample, error) {
	if b == nil {
		return dbSample{}, nil
	}
	s := dbSample{on: true, local: b.local, cpu: map[int]time.Duration{}}
	if !b.local {
		return s, nil
	}
	rows, err := b.conn.Query(ctx, backendsQuery)
	if err != nil {
		return s, fmt.Errorf("-pg: %w", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return s, fmt.Errorf("-pg: %w", err)
	}
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if errors.Is(err, fs.ErrNotExist) {
			continue // it ended since the query
		}
		if err != nil {
			return s, err
		}
		ticks, err := parseStat(string(stat))
		if err != nil {
			return s, fmt.Errorf("backend %d: %w", pid, err)
		}
		s.cpu[pid] = time.Duration(ticks) * time.Second / clockTicks
	}
	return s, nil
}

// since returns the CPU the backends spent after before was taken, and how
// many there were: one that started since counts in full, one that ended
// since is lost (the worker keeps its connections open for minutes).
func (s dbSample) since(before dbSample) (time.Duration, int) {
	var d time.Duration
	for pid, cpu := range s.cpu {
		d += cpu - before.cpu[pid]
	}
	return d, len(s.cpu)
}

// charge adds the backends' CPU since before to r's server CPU, per request.
func (s dbSample) charge(r *Record, before dbSample) {
	if !s.on {
		return
	}
	r.DB = "postgres"
	if !s.local || r.Requests == 0 {
		return
	}
	cpu, n := s.since(before)
	r.DBCPUus = float64(cpu) / float64(time.Microsecond) / float64(r.Requests)
	r.ServerCPUus += r.DBCPUus
	r.DBBackends = n
}

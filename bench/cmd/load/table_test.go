package main

import (
	"strings"
	"testing"
)

// callRecs is one round of get-c16 in the order a rotated round runs it,
// with the setup on PostgreSQL charged for backends (db > 0) or not.
func callRecs(round int, db int) []Record {
	pg := Record{Setup: "taskwire-split-postgres", DB: "postgres", RPS: 1500, ServerCPUus: 900}
	if db > 0 {
		pg.DBCPUus, pg.DBBackends = 300, db
	}
	recs := []Record{
		{Setup: "go-sdk", RPS: 2000, ServerCPUus: 600, P99Ms: 10},
		pg,
		{Setup: "bare", RPS: 6000, ServerCPUus: 100, P99Ms: 5},
		{Setup: "taskwire-serve", RPS: 3000, ServerCPUus: 300, P99Ms: 4},
		{Setup: "mcp-go", RPS: 4000, ServerCPUus: 200, P99Ms: 8},
		{Setup: "taskwire-split", RPS: 2500, ServerCPUus: 450, P99Ms: 6},
	}
	for i := range recs {
		recs[i].Round, recs[i].Scenario, recs[i].Tool, recs[i].Concurrency = round, "get-c16", "tasks_get", 16
		if recs[i].P99Ms == 0 {
			recs[i].P99Ms = 5
		}
	}
	return recs
}

// TestCallTable: the setups stand in a fixed order whatever order the
// rounds ran them in; the setup on PostgreSQL shows its backends' part of
// the CPU and has its ratios to each peer and the floor.
func TestCallTable(t *testing.T) {
	var b strings.Builder
	if err := markdown(&b, append(callRecs(1, 4), callRecs(2, 4)...)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	rows := []string{
		"| get-c16 | taskwire-serve | 3000 |",
		"| get-c16 | taskwire-split | 2500 |",
		"| get-c16 | taskwire-split-postgres | 1500 | 0.00 | 5.00 | 0.00 | 900 (pg 300) | 0.0 | 0 |",
		"| get-c16 | mcp-go | 4000 |",
		"| get-c16 | go-sdk | 2000 |",
		"| get-c16 | bare | 6000 |",
	}
	at := 0
	for _, row := range rows {
		i := strings.Index(got[at:], row)
		if i < 0 {
			t.Fatalf("markdown lacks %q after the rows before it; it is:\n%s", row, got)
		}
		at += i + len(row)
	}
	for _, want := range []string{
		"summed over them; on PostgreSQL (taskwire-split-postgres), also over the backends serving the worker's connections",
		"| get-c16 | taskwire-split-postgres | 9.00 | 4.50 (missed) | 1.50 (missed) | 0.25 | 0.75 (missed) | 0.50 (met) |",
		"| get-c16 | taskwire-serve | 3.00 | 1.50 (missed) | 0.50 (met) | 0.50 | 1.50 (missed) | 0.40 (met) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q; it is:\n%s", want, got)
		}
	}
}

// TestCallTableDBNotSeen: when PostgreSQL's backends could not be read,
// the table says its CPU is left out and shows no part in brackets.
func TestCallTableDBNotSeen(t *testing.T) {
	var b strings.Builder
	if err := markdown(&b, callRecs(1, 0)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"on PostgreSQL (taskwire-split-postgres), not PostgreSQL's, whose processes this machine does not see; peak RSS leaves PostgreSQL out:",
		"| get-c16 | taskwire-split-postgres | 1500 | 0.00 | 5.00 | 0.00 | 900 | 0.0 | 0 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q; it is:\n%s", want, got)
		}
	}
}

// TestCallTableSQLiteOnly: without a setup on PostgreSQL the note is as
// before.
func TestCallTableSQLiteOnly(t *testing.T) {
	var recs []Record
	for _, r := range callRecs(1, 0) {
		if r.DB == "" {
			recs = append(recs, r)
		}
	}
	var b strings.Builder
	if err := markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	if want := "summed over them:\n"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "PostgreSQL") {
		t.Errorf("markdown of SQLite setups lacks %q or names PostgreSQL; it is:\n%s", want, b.String())
	}
}

package main

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestCharge: a backend that lived through the run counts its growth, one
// that started during it counts in full, one that ended is lost.
func TestCharge(t *testing.T) {
	before := dbSample{on: true, local: true, cpu: map[int]time.Duration{10: 5 * time.Second, 11: time.Second, 12: time.Second}}
	after := dbSample{on: true, local: true, cpu: map[int]time.Duration{10: 6 * time.Second, 11: time.Second, 13: 500 * time.Millisecond}}
	r := Record{Requests: 1000, ServerCPUus: 2000}
	after.charge(&r, before)
	if r.DB != "postgres" || r.DBCPUus != 1500 || r.ServerCPUus != 3500 || r.DBBackends != 3 {
		t.Errorf("charge = db %q, %v µs/req of %v from %d backends, want postgres, 1500 of 3500 from 3", r.DB, r.DBCPUus, r.ServerCPUus, r.DBBackends)
	}
	r = Record{Requests: 1000, ServerCPUus: 2000}
	dbSample{on: true}.charge(&r, dbSample{on: true})
	if r.DB != "postgres" || r.ServerCPUus != 2000 || r.DBBackends != 0 {
		t.Errorf("charge(not local) = db %q, %v µs/req, %d backends, want postgres, 2000, 0", r.DB, r.ServerCPUus, r.DBBackends)
	}
	r = Record{Requests: 1000, ServerCPUus: 2000}
	dbSample{}.charge(&r, dbSample{})
	if r.DB != "" || r.ServerCPUus != 2000 {
		t.Errorf("charge(no -pg) = db %q, %v µs/req, want none, 2000", r.DB, r.ServerCPUus)
	}
}

// TestDBBackends reads the backends of a real database: its other
// connections', never the sampler's own.
func TestDBBackends(t *testing.T) {
	url := os.Getenv("TASKWIRE_TEST_POSTGRES")
	if url == "" {
		t.Skip("TASKWIRE_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	other, err := openDBBackends(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	db, err := openDBBackends(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.close()
	if !db.local {
		t.Skip("PostgreSQL is not a process of this machine")
	}
	var own, otherPID int
	if err := db.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&own); err != nil {
		t.Fatal(err)
	}
	if err := other.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&otherPID); err != nil {
		t.Fatal(err)
	}
	s, err := db.sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.cpu[own]; ok {
		t.Errorf("sample holds the sampler's own backend %d", own)
	}
	if _, ok := s.cpu[otherPID]; !ok {
		t.Errorf("sample = %v, want it to hold the other connection's backend %d", s.cpu, otherPID)
	}
}

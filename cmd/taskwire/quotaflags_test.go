package main

import (
	"flag"
	"testing"

	"github.com/taskwire/taskwire/internal/quota"
)

// TestQuotaFlags: the quotas are on by default for serve and worker, and
// a negative one is refused naming its flag.
func TestQuotaFlags(t *testing.T) {
	var serve config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	serve.serveFlags(fs)
	var worker nodeConfig
	wfs := flag.NewFlagSet("worker", flag.ContinueOnError)
	worker.workerFlags(wfs)
	if serve.Quota != quota.Defaults || worker.Quota != quota.Defaults || quota.Defaults != (quota.Limits{Tasks: 50_000, Members: 1_000, TokensPerMember: 50, Boards: 100}) {
		t.Errorf("default quotas: serve %+v, worker %+v; want 50000 tasks, 1000 members, 50 tokens a member, 100 boards", serve.Quota, worker.Quota)
	}
	wantFlagRefused(t,
		[]string{"--quota-tasks", "-1"},
		[]string{"--quota-members", "-1"},
		[]string{"--quota-tokens-per-member", "-1"},
		[]string{"--quota-boards", "-1"},
	)
}

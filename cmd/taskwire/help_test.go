package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// everyCommand lists every command and subcommand of taskwire, as typed.
func everyCommand() [][]string {
	cmds := [][]string{
		{}, {"serve"}, {"frontdoor"}, {"worker"}, {"migrate"}, {"copy"}, {"backup"}, {"restore"}, {"export"}, {"import"},
		{"token"}, {"token", "create"}, {"token", "list"}, {"token", "revoke"},
		{"admin"},
	}
	for group, sub := range adminCommands {
		cmds = append(cmds, []string{"admin", group})
		for name := range sub {
			cmds = append(cmds, []string{"admin", group, name})
		}
	}
	return cmds
}

// TestHelpExitsZero: every command and subcommand answers -h and --help
// with its usage on standard output, nothing on standard error, and exit
// status 0. Nothing runs: serve would otherwise start a server.
func TestHelpExitsZero(t *testing.T) {
	t.Setenv("TASKWIRE_DATA", t.TempDir()) // nothing may be made where the test runs
	for _, cmd := range everyCommand() {
		for _, help := range []string{"-h", "--help"} {
			args := append(slices.Clone(cmd), help)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if code := exitCode(err); code != 0 || stdout.Len() == 0 || stderr.Len() != 0 {
				t.Errorf("taskwire %s: exit %d (%v), %d bytes on stdout, stderr %q; want 0, the usage on stdout, nothing on stderr",
					strings.Join(args, " "), code, err, stdout.Len(), stderr.String())
			}
		}
	}
}

// TestUsageErrorsExitTwo: a missing or unknown command prints the usage
// on standard error and exits 2, as before.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"token"}, {"token", "nope"}, {"admin"}, {"admin", "members"}, {"admin", "members", "nope"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if code := exitCode(err); code != 2 || stderr.Len() == 0 {
			t.Errorf("taskwire %s: exit %d, stderr %q; want 2 and the usage on stderr", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// TestCLIErrorsNameTheFlag: an error a flag would fix names the flag.
func TestCLIErrorsNameTheFlag(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	secret := h.OperatorSecret(t)
	owner := h.AdminToken(t, "owner")
	for _, tc := range []struct {
		bearer string
		args   []string
		want   string
	}{
		{secret, []string{"members", "list"}, "name the tenant with --tenant SLUG"},
		{secret, []string{"members", "add", "bea"}, "--tenant SLUG"},
		{secret, []string{"tokens", "list"}, "--tenant SLUG"},
		{secret, []string{"tokens", "revoke-member", "owner"}, "--tenant SLUG"},
		{secret, []string{"tenants", "get"}, "taskwire admin tenants get SLUG"},
		{secret, []string{"tenants", "create", "acme"}, "--owner HANDLE"},
		{owner, []string{"tokens", "create"}, "--member HANDLE"},
		{owner, []string{"members", "add", "bea", "--kind", "robot"}, "--kind"},
		{owner, []string{"members", "add", "bea", "--role", "boss"}, "--role"},
	} {
		if _, err := a.cli(tc.bearer, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("taskwire admin %s: %v, want an error naming %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	// With a tenant named, or a tenant token, the same commands work.
	a.cliOK(secret, "members", "list", "--tenant", "default")
	a.cliOK(owner, "members", "list")

	var out, errOut bytes.Buffer
	unreachable := []string{"admin", "tenants", "list", "--url", "http://127.0.0.1:1", "--token", secret}
	if err := run(context.Background(), unreachable, &out, &errOut); err == nil || !strings.Contains(err.Error(), "check --url") {
		t.Errorf("admin with an unreachable --url: %v, want an error naming --url", err)
	}
	data := []string{"--data", h.Sys.Config().DataDir, "--public-url", h.Sys.Config().PublicURL}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"token", "create"}, data...), "--member HANDLE"},
		{append([]string{"token", "create", "--member", "nobody"}, data...), "--tenant SLUG"},
		{[]string{"migrate"}, "--db URL"},
		{[]string{"copy", "--to", "postgres://db/taskwire"}, "--from sqlite:"},
		{[]string{"backup", "--data", t.TempDir()}, "--out FILE"},
		{[]string{"restore", "--data", t.TempDir()}, "--from FILE --data NEWDIR"},
		{[]string{"serve", "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--public-url", "board.example.com", "--data", t.TempDir()}, "--public-url"},
	} {
		t.Setenv("TASKWIRE_DB", "")
		if err := run(context.Background(), tc.args, &out, &errOut); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("taskwire %s: %v, want an error naming %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestHelpKeepsTheAdminTokenSecret: help prints each flag's default, so a
// token in TASKWIRE_ADMIN_TOKEN must not be one; the commands still use it.
func TestHelpKeepsTheAdminTokenSecret(t *testing.T) {
	t.Setenv("TASKWIRE_DATA", t.TempDir())
	h := nodetest.Start(t, setups()[0])
	secret := h.OperatorSecret(t)
	t.Setenv("TASKWIRE_ADMIN_TOKEN", secret)
	for _, cmd := range everyCommand() {
		args := append(slices.Clone(cmd), "-h")
		var stdout, stderr bytes.Buffer
		_ = run(context.Background(), args, &stdout, &stderr)
		if strings.Contains(stdout.String()+stderr.String(), secret) {
			t.Errorf("taskwire %s printed the token from TASKWIRE_ADMIN_TOKEN", strings.Join(args, " "))
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"admin", "tenants", "list", "--url", newAdminClient(t, h).Base}, &stdout, &stderr); err != nil {
		t.Fatalf("admin tenants list with the secret in TASKWIRE_ADMIN_TOKEN = %v, want the tenants", err)
	}
	if !strings.Contains(stdout.String(), "default") {
		t.Errorf("admin tenants list printed %q, want the tenant default", stdout.String())
	}
}

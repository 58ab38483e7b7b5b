package main

import (
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestOperatorsCommands: `taskwire admin operators list` shows the first
// start's owner (who has set no email yet); grant and revoke change who
// else is one; an owner's admin token may do neither.
func TestOperatorsCommands(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	op := h.OperatorSecret(t)
	if table := a.cliOK(op, "operators", "list"); !strings.Contains(table, "EMAIL") || !strings.Contains(table, "Owner") {
		t.Errorf("operators list after the first start lacks the owner:\n%s", table)
	}
	a.cliOK(op, "invite", "--tenant", "default", "--email", "Bea@Example.com")
	if out := a.cliOK(op, "operators", "grant", "--email", "bea@example.com"); !strings.Contains(out, "bea@example.com is a platform operator") {
		t.Errorf("operators grant printed:\n%s", out)
	}
	if table := a.cliOK(op, "operators", "list"); !strings.Contains(table, "bea@example.com") {
		t.Errorf("operators list after granting bea lacks her:\n%s", table)
	}
	if out := a.cliOK(op, "operators", "revoke", "--email", "bea@example.com"); !strings.Contains(out, "bea@example.com is no platform operator") {
		t.Errorf("operators revoke printed:\n%s", out)
	}
	if table := a.cliOK(op, "operators", "list"); strings.Contains(table, "bea@example.com") {
		t.Errorf("operators list after revoking bea still has her:\n%s", table)
	}
	if _, err := a.cli(op, "operators", "grant"); err == nil || !strings.Contains(err.Error(), "--email") {
		t.Errorf("operators grant without an email = %v, want a refusal naming --email", err)
	}
	if _, err := a.cli(op, "operators", "grant", "--email", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no account") {
		t.Errorf("operators grant of an unknown email = %v, want a refusal saying there is no account", err)
	}
	if _, err := a.cli(h.AdminToken(t, "owner"), "operators", "list"); err == nil {
		t.Error("operators list with an owner's admin token succeeded, want refused")
	}
}

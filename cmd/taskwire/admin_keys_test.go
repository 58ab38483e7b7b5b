package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestKeysCommands: `taskwire admin keys rotate` and `keys list` on a
// server as `serve` starts it; the first start's token keeps working.
func TestKeysCommands(t *testing.T) {
	h := nodetest.Start(t, setups()[0])
	a := newAdminClient(t, h)
	op := h.OperatorSecret(t)
	oldKid := nodetest.KeyID(t, h.Token)
	out := a.cliOK(op, "keys", "rotate")
	if !strings.Contains(out, "New tokens are signed with key ") || !strings.Contains(out, "Tokens signed with key "+oldKid+" still verify until ") {
		t.Errorf("keys rotate printed:\n%s", out)
	}
	table := a.cliOK(op, "keys", "list")
	for _, want := range []string{"KID", "VERIFIES UNTIL", oldKid, "signing", "retired"} {
		if !strings.Contains(table, want) {
			t.Errorf("keys list lacks %q:\n%s", want, table)
		}
	}
	if _, err := a.cli(h.AdminToken(t, "owner"), "keys", "rotate"); err == nil {
		t.Error("keys rotate with an owner's admin token succeeded, want refused")
	}
	if s := nodetest.ToolsListStatus(t, h.Sys.Endpoint, "", h.Token); s != http.StatusOK {
		t.Errorf("the first start's token after a rotation = %d, want 200", s)
	}
}

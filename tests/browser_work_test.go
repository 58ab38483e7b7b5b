package tests

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserWorkApprove: approve work the assistant then claims. An
// assistant proposes a plan with work_approve; it is sent to the
// decision's page, where the owner reads the task, the plan (as text) and
// the limits, and approves; the assistant's retry approves the work in
// her name, and work_next hands the assistant the task with the plan.
func TestBrowserWorkApprove(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	const plan = "Fix the redirect in auth/login.go.\nDo not touch <script>the session code</script>.\nDone when the login test passes."
	d := &decider{t: t, p: p, choice: "approve", reason: "Go ahead.", shot: "decision-work"}
	d.sees = func() {
		if got := p.text("#work-proposal .plan"); got != plan {
			t.Errorf("the decision page shows the plan %q, want %q as text", got, plan)
		}
		if p.count("#work-proposal .plan script") != 0 {
			t.Error("the plan's markup became elements on the decision page, want it inert text")
		}
		if lease, claims := p.text("#work-proposal .lease"), p.text("#work-proposal .claims"); lease != "45 minutes per claim" || claims != "at most 2" {
			t.Errorf("the decision page shows the limits %q and %q, want 45 minutes per claim, at most 2", lease, claims)
		}
		if got := p.text("#work-proposal a"); got != "T-1" {
			t.Errorf("the decision page links the task %q, want T-1", got)
		}
	}
	bot := s.assistant(t, "bot", &mcp.ClientOptions{
		ElicitationHandler: d.elicit,
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
	})
	nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "Fix the login redirect"})

	approved := nodetest.CallOK(t, bot, "work_approve", map[string]any{"ref": "T-1", "plan": plan, "lease_minutes": 45, "max_claims": 2})
	work := approved["work"].(map[string]any)
	if work["approved_by"] != s.owner || work["state"] != "approved" {
		t.Errorf("work_approve approved in the console = %v, want approved by %s", work, s.owner)
	}
	if got := p.text("p#decision-state"); !strings.Contains(got, "Approved by "+s.owner) {
		t.Errorf("the decision page after approving says %q, want Approved by %s", got, s.owner)
	}
	next := nodetest.CallOK(t, bot, "work_next", nil)
	if next["task"].(map[string]any)["ref"] != "T-1" || next["work"].(map[string]any)["plan"] != plan {
		t.Errorf("work_next = %v, want T-1 with the approved plan", next)
	}
}

package tests

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestConsoleApprovesWork: the owner approves a task for assistants on
// its page; an assistant claims it with her plan and limits and releases
// it at its last claim with a reason; the inbox then lists it as waiting
// to be approved again, linking to the form, until she approves it
// again. On SQLite and PostgreSQL.
func TestConsoleApprovesWork(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			person := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignIn(t, person, signInLink(t, h, "default", "owner"))
			bot := addBot(t, h)
			boss, _ := h.Client(t, h.Token, nil)
			nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Migrate the billing tables"})
			cs, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", bot.ID, authz.AllScopes), nil)

			const taskPage = "/t/default/tasks/T-1"
			page := person.get(taskPage)
			if !strings.Contains(page, "Not approved for assistants.") {
				t.Errorf("the task page does not say the task is not approved:\n%s", page)
			}
			code, _, body := person.submit(page, `<form id="work"`, url.Values{"plan": {"  "}, "lease_minutes": {"20"}, "max_claims": {"1"}})
			if code != http.StatusBadRequest || !strings.Contains(body, "plan is empty") || !strings.Contains(body, `value="20"`) {
				t.Errorf("approving with no plan = %d, want 400 saying the plan is empty, the form kept:\n%s", code, body)
			}
			const plan = "Write the migration; do not drop columns."
			if code, loc, body := person.submit(page, `<form id="work"`, url.Values{"plan": {plan}, "lease_minutes": {"20"}, "max_claims": {"1"}}); code != http.StatusSeeOther || loc != taskPage+"#approve-work" {
				t.Fatalf("approving on the task page = %d to %q, want 303 back to the form:\n%s", code, loc, body)
			}
			if page := person.get(taskPage); !strings.Contains(page, "Work on this task is approved.") {
				t.Errorf("the task page after approving does not say it is approved:\n%s", page)
			}

			next := nodetest.CallOK(t, cs, "work_next", nil)
			work := next["work"].(map[string]any)
			if work["plan"] != plan || work["approved_by"] != "owner" || work["lease_minutes"] != 20.0 || work["max_claims"] != 1.0 {
				t.Fatalf("work_next = %v, want the owner's plan, 20 minutes, 1 claim", work)
			}
			nodetest.CallOK(t, cs, "work_release", map[string]any{"ref": "T-1", "lease_token": next["lease_token"], "reason": "Needs the schema owner."})

			inbox := person.get("/t/default/decisions")
			for _, want := range []string{`<li data-ref="T-1">`, `href="/t/default/tasks/T-1#approve-work"`, "claims ran out (1 of 1)", "released because: Needs the schema owner."} {
				if !strings.Contains(inbox, want) {
					t.Errorf("the inbox's work waiting to be approved again lacks %s:\n%s", want, inbox)
				}
			}
			page = person.get(taskPage)
			if code, _, body := person.submit(page, `<form id="work"`, url.Values{"plan": {"Write the migration; the owner signed off."}, "lease_minutes": {"20"}, "max_claims": {"1"}}); code != http.StatusSeeOther {
				t.Fatalf("approving again = %d, want 303:\n%s", code, body)
			}
			if inbox := person.get("/t/default/decisions"); !strings.Contains(inbox, "No work is waiting to be approved again.") {
				t.Errorf("the inbox still lists work after it was approved again:\n%s", inbox)
			}
		})
	}
}

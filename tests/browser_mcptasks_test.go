package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserMCPTaskDecision: an assistant's tasks_delete, from a client
// of the MCP Tasks extension, runs as a task waiting for a person
// (input_required, pointing at the decision's page). The owner, signed
// in to the console in Chromium, opens that page while the client polls
// and presses Approve; the client's next polls see the task completed
// with the delete, the board's task is gone, and the page then says the
// call has run. The page is saved as mcp-task-decision.png.
func TestBrowserMCPTaskDecision(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	bot, err := tenancy.AddMember(context.Background(), s.db, s.tenant, tenancy.MemberSpec{
		Handle: "bot", Name: "Assistant bot", Kind: member.KindAssistant, SponsorHandle: s.owner})
	if err != nil {
		t.Fatal(err)
	}
	boss, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Superseded plan"})
	client := newTaskClient(t, &http.Client{Transport: s.mcpVia}, s.endpoint,
		nodetest.RecordToken(t, s.db, s.issuer, s.tenant, bot.ID, authz.AllScopes), map[string]any{
			"extensions":  map[string]any{tasksExtension: map[string]any{}},
			"elicitation": map[string]any{"url": map[string]any{}},
		})

	id := client.startTask("tasks_delete", map[string]any{"ref": "T-1"})["taskId"].(string)
	waiting := client.await(id, "input_required", "completed", "failed", "cancelled")
	req, _ := waiting["inputRequests"].(map[string]any)["confirm"].(map[string]any)
	params, _ := req["params"].(map[string]any)
	page, _ := params["url"].(string)
	u, err := url.Parse(page)
	if waiting["status"] != "input_required" || params["mode"] != "url" || err != nil ||
		u.Scheme+"://"+u.Host != s.base || !strings.HasPrefix(u.Path, "/t/"+s.tenant+"/decisions/") {
		t.Fatalf("waiting task = %v, want input_required pointing at a decision page under %s", waiting, s.base)
	}

	p.open(u.RequestURI())
	if got := p.text("p#decision-state"); !strings.HasPrefix(got, "Pending") {
		t.Errorf("decision page of the waiting task says %q, want Pending", got)
	}
	if got := p.text("h1.question"); !strings.Contains(got, "Delete task T-1?") {
		t.Errorf("decision page asks %q, want the delete of T-1", got)
	}
	p.checkPage("the decision page of a waiting MCP task", "mcp-task-decision")
	if got := client.get(id); got["status"] != "input_required" {
		t.Errorf("task before the person decided = %v, want input_required", got)
	}
	p.submit("form#decide", map[string]string{"reason": "Superseded by the new plan."}, `button[name="decision"][value="approve"]`)

	checkDeletedBy(t, client.await(id, "completed", "failed", "cancelled"), boss, "T-1")
	p.open(u.RequestURI())
	if got := p.text("p#decision-state"); !strings.Contains(got, "the call has run") {
		t.Errorf("decision page after the task completed says %q, want that the call has run", got)
	}
}

package tests

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestMCPTaskWaitsForPerson: an assistant's tasks_delete, from a client
// of the MCP Tasks extension, becomes a task waiting for a person's
// decision (input_required, with the URL-mode elicitation of the
// decision's page); the client's own answer decides nothing. The owner
// approves on the console's page while the client polls, and the task
// completes with the delete. A declined delete completes as a tool error
// with the person's reason; a client without URL elicitation sees the
// waiting task as working, with a message saying who must decide.
func TestMCPTaskWaitsForPerson(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	base := h.Sys.Config().PublicURL
	person := newBrowser(t, base)
	firstSignIn(t, person, signInLink(t, h, "default", "owner"))
	bot, err := tenancy.AddMember(context.Background(), h.Sys.DB, "default", tenancy.MemberSpec{
		Handle: "bot", Name: "Helper Bot", Kind: member.KindAssistant, SponsorHandle: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	boss, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Obsolete plan"})
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Still needed"})
	botToken := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", bot.ID, authz.AllScopes)
	client := newTaskClient(t, http.DefaultClient, h.Sys.Endpoint, botToken, map[string]any{
		"extensions":  map[string]any{tasksExtension: map[string]any{}},
		"elicitation": map[string]any{"url": map[string]any{}},
	})
	// decide presses a button on the decision page the task points to.
	decide := func(page string, fields url.Values) {
		t.Helper()
		path := strings.TrimPrefix(page, base)
		if !strings.HasPrefix(path, "/t/default/decisions/") {
			t.Fatalf("decision page = %q, want one of the console under %s", page, base)
		}
		if code, loc, body := person.submit(person.get(path), `<form id="decide"`, fields); code != http.StatusSeeOther || loc != path {
			t.Fatalf("deciding = %d to %q, want 303 back to %s:\n%s", code, loc, path, body)
		}
	}

	created := client.startTask("tasks_delete", map[string]any{"ref": "T-1"})
	id := created["taskId"].(string)
	if created["status"] != "input_required" {
		t.Errorf("CreateTaskResult = %v, want input_required", created)
	}
	waiting := client.get(id)
	req, _ := waiting["inputRequests"].(map[string]any)["confirm"].(map[string]any)
	params, _ := req["params"].(map[string]any)
	if waiting["status"] != "input_required" || req["method"] != "elicitation/create" || params["mode"] != "url" {
		t.Fatalf("waiting task = %v, want input_required with a URL elicitation", waiting)
	}
	// The assistant's own "yes" is acknowledged and decides nothing.
	resultOf(t, client.rpc("tasks/update", id, map[string]any{"taskId": id,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}), "UpdateTaskResult")
	if got := client.get(id); got["status"] != "input_required" {
		t.Errorf("task after the assistant's own answer = %v, want input_required still", got)
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})

	decide(params["url"].(string), url.Values{"decision": {"approve"}})
	checkDeletedBy(t, client.await(id, "completed", "failed", "cancelled"), boss, "T-1")

	// Declined, from a client that cannot show a page: working meanwhile.
	formOnly := newTaskClient(t, http.DefaultClient, h.Sys.Endpoint, botToken, nil)
	id = formOnly.startTask("tasks_delete", map[string]any{"ref": "T-2"})["taskId"].(string)
	waiting = formOnly.get(id)
	msg, _ := waiting["statusMessage"].(string)
	if waiting["status"] != "working" || waiting["inputRequests"] != nil || !strings.Contains(msg, "console") {
		t.Fatalf("waiting task without URL elicitation = %v, want working, saying a person decides in the console", waiting)
	}
	inbox := person.get("/t/default/decisions")
	m := regexp.MustCompile(`data-decision="([^"]+)" data-state="pending"`).FindStringSubmatch(inbox)
	if m == nil {
		t.Fatalf("the inbox lists no pending decision:\n%s", inbox)
	}
	decide(base+"/t/default/decisions/"+m[1], url.Values{"decision": {"decline"}, "reason": {"We still need it."}})
	done := formOnly.await(id, "completed", "failed", "cancelled")
	result, _ := done["result"].(map[string]any)
	want := "Not done: owner declined: We still need it. Do not retry unless they ask you to."
	if done["status"] != "completed" || result["isError"] != true || !strings.Contains(mustJSON(t, result), want) {
		t.Errorf("declined task = %v, want completed with the tool error %q", done, want)
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-2"})
}

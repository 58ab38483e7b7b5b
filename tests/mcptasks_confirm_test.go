package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestMCPTaskConfirm: a person's own tasks_delete, from a client of the
// MCP Tasks extension, becomes a task waiting for their confirmation
// (input_required, with the form a call the client waits for gets),
// answered with tasks/update: confirmed, it completes with the delete;
// declined, it completes with the refusal the call the client waits for
// gets, and the task stays. Answers under other keys leave it waiting;
// tasks_restore confirms the same way.
func TestMCPTaskConfirm(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	boss, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Obsolete plan"})
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Still needed"})
	caps := map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}, "elicitation": map[string]any{}}
	client := newTaskClient(t, http.DefaultClient, h.Sys.Endpoint, h.Token, caps)
	update := func(id string, responses map[string]any) {
		t.Helper()
		resultOf(t, client.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": responses}), "UpdateTaskResult")
	}
	const question = "Delete task T-1? It can be restored later with tasks_restore."

	created := client.startTask("tasks_delete", map[string]any{"ref": "T-1"})
	id := created["taskId"].(string)
	if created["status"] != "input_required" || created["statusMessage"] != question {
		t.Errorf("CreateTaskResult = %v, want input_required with the question", created)
	}
	waiting := client.get(id)
	req, _ := waiting["inputRequests"].(map[string]any)["confirm"].(map[string]any)
	params, _ := req["params"].(map[string]any)
	if waiting["status"] != "input_required" || req["method"] != "elicitation/create" || params["mode"] != "form" || params["message"] != question {
		t.Fatalf("waiting task = %v, want input_required with the confirmation form", waiting)
	}
	update(id, map[string]any{"unasked": map[string]any{"action": "accept"}, "confirm": map[string]any{}})
	if got := client.get(id); got["status"] != "input_required" || got["inputRequests"] == nil {
		t.Errorf("task after answers that are none = %v, want input_required still", got)
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})

	update(id, map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}})
	checkDeletedBy(t, client.await(id, "completed", "failed", "cancelled"), boss, "T-1")
	// tasks_restore asks the same way.
	id = client.startTask("tasks_restore", map[string]any{"ref": "T-1"})["taskId"].(string)
	update(id, map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}})
	if done := client.await(id, "completed", "failed", "cancelled"); done["status"] != "completed" || done["result"].(map[string]any)["isError"] == true {
		t.Fatalf("confirmed restore = %v, want completed", done)
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})

	// Declined: the same tool result as the call the client waits for.
	no := map[string]any{"confirm": map[string]any{"action": "decline"}}
	plain := newTaskClient(t, http.DefaultClient, h.Sys.Endpoint, h.Token, map[string]any{"elicitation": map[string]any{}})
	args := map[string]any{"ref": "T-2"}
	asked := resultOf(t, plain.rpc("tools/call", "tasks_delete", map[string]any{"name": "tasks_delete", "arguments": args}), "")
	if asked["resultType"] != "input_required" {
		t.Fatalf("tasks_delete without the extension = %v, want input_required as before", asked)
	}
	refused := resultOf(t, plain.rpc("tools/call", "tasks_delete", map[string]any{"name": "tasks_delete", "arguments": args,
		"inputResponses": no, "requestState": asked["requestState"]}), "")

	id = client.startTask("tasks_delete", args)["taskId"].(string)
	update(id, no)
	done := client.await(id, "completed", "failed", "cancelled")
	result, _ := done["result"].(map[string]any)
	want, got := mustJSON(t, refused["content"]), mustJSON(t, result["content"])
	if done["status"] != "completed" || result["isError"] != true || refused["isError"] != true || got != want || !strings.Contains(got, "Not done") {
		t.Errorf("declined task = %v\nwant completed with the refusal of the call waited for: %s", done, want)
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-2"})
}

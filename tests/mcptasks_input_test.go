package tests

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// TestMCPTaskAsksInput: a call running as an MCP task that asks the
// client for input waits input_required with its requests; the client
// answers them with tasks/update one at a time, the answered one leaves
// the list, and once all are in the call runs again with them and
// completes. Answers under keys not asked for are ignored.
func TestMCPTaskAsksInput(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setup{Name: "sqlite+embedded-nats", Conformance: true})
	client := newTaskClient(t, http.DefaultClient, h.Sys.Endpoint, h.Token, map[string]any{
		"extensions":  map[string]any{tasksExtension: map[string]any{}},
		"elicitation": map[string]any{},
	})
	keys := func(task map[string]any) []string {
		reqs, _ := task["inputRequests"].(map[string]any)
		var out []string
		for k := range reqs {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	update := func(id string, responses map[string]any) {
		t.Helper()
		resultOf(t, client.rpc("tasks/update", id, map[string]any{"taskId": id, "inputResponses": responses}), "UpdateTaskResult")
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{"name": "Alice", "confirm": true}}

	id := client.startTask("multi_input", map[string]any{})["taskId"].(string)
	waiting := client.await(id, "input_required", "completed", "failed")
	if got := keys(waiting); waiting["status"] != "input_required" || !slices.Equal(got, []string{"first", "second"}) {
		t.Fatalf("multi_input task = %v, want input_required asking first and second", waiting)
	}
	update(id, map[string]any{"first": accept, "unasked": accept})
	if got := client.get(id); got["status"] != "input_required" || !slices.Equal(keys(got), []string{"second"}) {
		t.Errorf("task after the first answer = %v, want input_required asking second only", got)
	}
	update(id, map[string]any{"second": map[string]any{"action": "decline"}})
	done := client.await(id, "completed", "failed", "cancelled")
	text := mustJSON(t, done["result"])
	if done["status"] != "completed" || !strings.Contains(text, "Answered: first accept, second decline.") {
		t.Errorf("answered task = %v, want completed with both answers", done)
	}

	// Cancelled while it waits: it ends cancelled, and answers change nothing.
	id = client.startTask("confirm_delete", map[string]any{"filename": "a.txt"})["taskId"].(string)
	client.await(id, "input_required")
	resultOf(t, client.rpc("tasks/cancel", id, map[string]any{"taskId": id}), "CancelTaskResult")
	update(id, map[string]any{"confirm": accept})
	if got := client.get(id); got["status"] != "cancelled" {
		t.Errorf("cancelled waiting task after an answer = %v, want cancelled", got)
	}
}

package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestDeleteAsksForConfirmation: tasks_delete and tasks_restore run only
// after a person confirms through an elicitation form (input_required and
// a retry), which the go-sdk client does for us when it has an
// elicitation handler.
func TestDeleteAsksForConfirmation(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			var asked atomic.Int32
			var answer atomic.Value
			answer.Store("accept")
			cs, rec := h.Client(t, h.Token, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if !strings.Contains(r.Params.Message, "Delete task T-1?") && !strings.Contains(r.Params.Message, "Restore the deleted task T-1?") {
						t.Errorf("elicitation message = %q, want the tool's question about T-1", r.Params.Message)
					}
					a := answer.Load().(string)
					return &mcp.ElicitResult{Action: a, Content: map[string]any{"confirm": a == "accept"}}, nil
				},
			})
			nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Short-lived"})

			answer.Store("decline")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_delete", Arguments: map[string]any{"ref": "T-1"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "did not confirm") {
				t.Fatalf("tasks_delete declined = %v, %v; want an isError result saying it was not confirmed", res, err)
			}
			nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": "T-1"}) // still there

			answer.Store("accept")
			deleted := nodetest.CallOK(t, cs, "tasks_delete", map[string]any{"ref": "T-1"})
			if deleted["task"].(map[string]any)["ref"] != "T-1" {
				t.Errorf("tasks_delete = %v, want T-1", deleted)
			}
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-1"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "tasks_restore") {
				t.Errorf("tasks_get of a deleted task = %v, %v; want isError pointing to tasks_restore", res, err)
			}
			nodetest.CallOK(t, cs, "tasks_restore", map[string]any{"ref": "T-1"})
			nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": "T-1"})
			if n := asked.Load(); n != 3 {
				t.Errorf("the person was asked %d times, want 3 (decline, delete, restore)", n)
			}
			// The first answer to each call was input_required, valid under the schema.
			inputRequired := 0
			for _, m := range rec.Sent("tools/call") {
				if strings.Contains(string(m), `"resultType":"input_required"`) {
					inputRequired++
				}
			}
			if inputRequired != 3 {
				t.Errorf("%d input_required results, want 3", inputRequired)
			}
		})
	}
}

// TestConfirmationRules drives the exchange by hand: no elicitation
// capability → -32021; a state replayed, altered or used for other
// arguments is refused; a confirmation deletes once.
func TestConfirmationRules(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	callTool := func(tool string, id int, args, extra string, caps string) (int, map[string]any) {
		body := `{"jsonrpc":"2.0","id":` + nodetest.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + extra +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		status, raw := nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", tool, body)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return status, m
	}
	call := func(id int, args, extra string, caps string) (int, map[string]any) {
		return callTool("tasks_delete", id, args, extra, caps)
	}
	nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", "tasks_create",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tasks_create","arguments":{"title":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	nodetest.PostMCP(t, h.Sys.Endpoint, h.Token, "tools/call", "tasks_create",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tasks_create","arguments":{"title":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)

	status, m := call(3, `{"ref":"T-1"}`, "", `{}`)
	if status != http.StatusBadRequest || code(m) != -32021 {
		t.Errorf("tasks_delete without elicitation = %d %v, want 400 -32021", status, m)
	}

	status, m = call(4, `{"ref":"T-1"}`, "", `{"elicitation":{}}`)
	result, _ := m["result"].(map[string]any)
	state, _ := result["requestState"].(string)
	if status != http.StatusOK || result["resultType"] != "input_required" || state == "" {
		t.Fatalf("tasks_delete with elicitation = %d %v, want input_required with a requestState", status, m)
	}
	yes := `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"` + state + `"`

	if status, m = call(5, `{"ref":"T-2"}`, yes, `{"elicitation":{}}`); status != http.StatusBadRequest || code(m) != -32602 {
		t.Errorf("the state of T-1 used to delete T-2 = %d %v, want 400 -32602", status, m)
	}
	altered := strings.Replace(yes, state, state[:len(state)-3]+"AAA", 1)
	if status, m = call(6, `{"ref":"T-1"}`, altered, `{"elicitation":{}}`); status != http.StatusBadRequest || code(m) != -32602 {
		t.Errorf("an altered state = %d %v, want 400 -32602", status, m)
	}
	if _, m = call(7, `{"ref":"T-1"}`, yes, `{"elicitation":{}}`); nodetest.IsError(m) {
		t.Fatalf("the confirmed delete = %v, want success", m)
	}
	// Restore T-1 (confirmed anew), then replay the delete's confirmation:
	// it was used up, so T-1 stays.
	_, m = callTool("tasks_restore", 8, `{"ref":"T-1"}`, "", `{"elicitation":{}}`)
	restoreState, _ := m["result"].(map[string]any)["requestState"].(string)
	restoreYes := strings.Replace(yes, state, restoreState, 1)
	if _, m = callTool("tasks_restore", 9, `{"ref":"T-1"}`, restoreYes, `{"elicitation":{}}`); nodetest.IsError(m) {
		t.Fatalf("the confirmed restore = %v, want success", m)
	}
	_, m = call(10, `{"ref":"T-1"}`, yes, `{"elicitation":{}}`)
	if !nodetest.IsError(m) || !strings.Contains(toJSON(m), "already used") {
		t.Errorf("the delete's confirmation replayed = %v, want an isError saying it was already used", m)
	}
}

func code(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestEndToEnd drives a whole Taskwire, started as `taskwire serve` starts
// it, with the go-sdk client at 2026-07-28: discover, tools/list, and tool
// calls that travel HTTP → gRPC → worker → database, with an import's
// progress coming back over NATS. Every message the server sends is checked
// against the official schema.
func TestEndToEnd(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			var mu sync.Mutex
			var progress []*mcp.ProgressNotificationParams
			cs, rec := h.Client(t, h.Token, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, r.Params)
					mu.Unlock()
				},
			})
			ctx := context.Background()

			if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
				t.Errorf("negotiated version = %q, want 2026-07-28", got)
			}
			if len(rec.Sent("server/discover")) != 1 {
				t.Errorf("server/discover answered %d times, want once", len(rec.Sent("server/discover")))
			}

			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			want := []string{
				"boards_list", "boards_get", "boards_update", "boards_create", "members_list", "context_get", "context_add",
				"tasks_get", "tasks_list", "tasks_search", "tasks_create", "tasks_update", "tasks_move", "tasks_assign", "tasks_flag",
				"tasks_delete", "tasks_restore", "tasks_import", "comments_list", "comments_add", "comments_edit",
				"work_approve", "work_next", "work_heartbeat", "work_release", "work_complete", "whoami", "audit_list",
			}
			if !slices.Equal(names, want) {
				t.Errorf("tools = %v, want %v", names, want)
			}
			outputs := compileOutputSchemas(t, tools.Tools)
			callOK := func(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
				t.Helper()
				got := nodetest.CallOK(t, cs, name, args)
				outputs.check(t, name, got)
				return got
			}

			created := callOK(t, cs, "tasks_create", map[string]any{"title": "Write the README", "kind": "chore", "assignees": []string{"me"}})
			task := created["task"].(map[string]any)
			if task["ref"] != "T-1" || task["lane"] != "backlog" || task["kind"] != "chore" || task["created_by"] != "owner" {
				t.Errorf("tasks_create = %v, want T-1 in backlog, a chore by owner", task)
			}

			got := callOK(t, cs, "tasks_get", map[string]any{"ref": "T-1"})
			if got["task"].(map[string]any)["title"] != "Write the README" {
				t.Errorf("tasks_get T-1 = %v, want the task just created", got)
			}

			updated := callOK(t, cs, "tasks_update", map[string]any{"ref": "T-1", "size": "s", "note": "Both commands first.", "expected_version": 1})
			if v := updated["task"].(map[string]any)["version"]; v != float64(2) {
				t.Errorf("version after tasks_update = %v, want 2", v)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_update", Arguments: map[string]any{"ref": "T-1", "title": "Stale", "expected_version": 1}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "tasks_get") {
				t.Errorf("tasks_update with a stale version = %v, %v; want an isError result telling to read again", res, err)
			}
			moved := callOK(t, cs, "tasks_move", map[string]any{"ref": "t-1", "lane": "doing"})
			if moved["from_lane"] != "backlog" || moved["task"].(map[string]any)["lane"] != "doing" {
				t.Errorf("tasks_move = %v, want backlog → doing", moved)
			}
			callOK(t, cs, "comments_add", map[string]any{"ref": "T-1", "body": "Started on it."})
			withComments := callOK(t, cs, "tasks_get", map[string]any{"ref": "T-1", "include_comments": true})
			if c := withComments["comments"].([]any); len(c) != 1 || c[0].(map[string]any)["author_kind"] != "human" {
				t.Errorf("tasks_get comments = %v, want the owner's one comment", c)
			}
			callOK(t, cs, "boards_list", map[string]any{})
			checkActivity(t, h, "T-1", []string{"task.created", "task.updated", "task.moved", "comment.added"})

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-99"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "T-99") {
				t.Errorf("tasks_get T-99 = %v, %v; want an isError result naming T-99", res, err)
			}

			drafts := make([]map[string]any, 120)
			for i := range drafts {
				drafts[i] = map[string]any{"title": fmt.Sprintf("Imported task %d", i+1)}
			}
			params := &mcp.CallToolParams{Name: "tasks_import", Arguments: map[string]any{"tasks": drafts}}
			params.SetProgressToken("import-1")
			res, err = cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("tasks_import = %v, %v", res, err)
			}
			imported := nodetest.Structured(t, res)
			outputs.check(t, "tasks_import", imported)
			if imported["imported"] != float64(120) {
				t.Errorf("tasks_import imported %v, want 120", imported["imported"])
			}
			awaitProgress(t, &mu, &progress, 120)
			mu.Lock()
			checkProgress(t, progress, "import-1", 120)
			mu.Unlock()
			// The import's progress and result went out on one SSE stream,
			// each message validated against the schema on the way.
			if n, p := len(rec.Sent("tools/call")), len(progress); n != p+10 {
				t.Errorf("recorded %d tools/call messages, want the %d progress notifications and 10 results", n, p)
			}

			list := callOK(t, cs, "tasks_list", map[string]any{"limit": 100})
			if n := len(list["items"].([]any)); n != 100 || list["next_cursor"] == "" {
				t.Errorf("tasks_list limit 100 gave %d tasks, cursor %q; want 100 and a cursor", n, list["next_cursor"])
			}
			rest := callOK(t, cs, "tasks_list", map[string]any{"limit": 100, "cursor": list["next_cursor"]})
			if n := len(rest["items"].([]any)); n != 21 {
				t.Errorf("second page has %d tasks, want 21 (121 in all)", n)
			}
		})
	}
}

// awaitProgress waits until the client has handled the last progress
// notification of a call with total steps: the client may run its handler
// after CallTool has returned, although the server sent every notification
// before the result.
func awaitProgress(t *testing.T, mu *sync.Mutex, got *[]*mcp.ProgressNotificationParams, total int) {
	t.Helper()
	poll.Until(t, 10*time.Second, "the last progress notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := len(*got)
		return n > 0 && (*got)[n-1].Progress == float64(total)
	})
}

// checkProgress asserts the notifications of one call: the client's token
// echoed, progress strictly rising, the last one saying all was done.
func checkProgress(t *testing.T, got []*mcp.ProgressNotificationParams, token string, total int) {
	t.Helper()
	if len(got) == 0 {
		t.Fatal("no notifications/progress arrived")
	}
	last := -1.0
	for _, p := range got {
		if p.ProgressToken != token {
			t.Errorf("progressToken = %v, want %q", p.ProgressToken, token)
		}
		if p.Progress <= last {
			t.Errorf("progress went from %v to %v, want strictly rising", last, p.Progress)
		}
		last = p.Progress
	}
	end := got[len(got)-1]
	if end.Progress != float64(total) || end.Total != float64(total) || end.Message != fmt.Sprintf("Imported %d of %d tasks", total, total) {
		t.Errorf("last progress = %+v, want %d of %d", end, total, total)
	}
}

// outputSchemas holds each tool's compiled outputSchema, as tools/list
// announced it: structuredContent must match it (MCP 2026-07-28, server/tools).
type outputSchemas map[string]*jsonschema.Schema

func compileOutputSchemas(t *testing.T, tools []*mcp.Tool) outputSchemas {
	t.Helper()
	out := outputSchemas{}
	for _, tool := range tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		url := "taskwire:e2e/" + tool.Name
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if out[tool.Name], err = c.Compile(url); err != nil {
			t.Fatalf("outputSchema of %s does not compile: %v", tool.Name, err)
		}
	}
	return out
}

func (o outputSchemas) check(t *testing.T, tool string, structured map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(structured)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := o[tool].Validate(inst); err != nil {
		t.Errorf("structuredContent of %s does not match its outputSchema: %v\n%s", tool, err, raw)
	}
}

// checkActivity asserts the activity log of task ref, oldest first: each
// write recorded who (the owner, a human) did what.
func checkActivity(t *testing.T, h *nodetest.Harness, ref string, want []string) {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	var number int
	fmt.Sscanf(ref, "T-%d", &number)
	rows, err := h.Sys.DB.Activity.Query().
		Where(activity.HasTaskWith(task.Number(number))).
		Order(ent.Asc(activity.FieldID)).WithActor().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Action)
		if r.ActorKind != activity.ActorKindHuman || r.Edges.Actor.Handle != "owner" {
			t.Errorf("activity %s by %s (%s), want by owner (human)", r.Action, r.Edges.Actor.Handle, r.ActorKind)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("activity of %s = %v, want %v", ref, got, want)
	}
}

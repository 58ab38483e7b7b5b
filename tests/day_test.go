package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestADayOnTheBoard walks a realistic day through the go-sdk client, on
// SQLite and on PostgreSQL. The owner, a person, sets up a board (WIP
// limit, standing rules, a context note), adds two assistants with
// different roles and a viewer through the admin API, files tasks and
// approves two of them for assistants. The assistants read their context,
// claim work from the queue, comment, move and complete tasks; one hands
// its task back and the other picks it up, and the first one's stale lease
// is refused; one retries writes with the same idempotency key and they
// apply once; the viewer is refused a move. Every structuredContent is
// checked against the tool's outputSchema.
func TestADayOnTheBoard(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) { testADayOnTheBoard(t, s) })
	}
}

// dayClient is one member's MCP session.
type dayClient struct {
	t    *testing.T
	name string
	cs   *mcp.ClientSession
	out  outputSchemas
	// checked collects, across every member's session, the tools whose
	// structuredContent was checked against their outputSchema.
	checked map[string]bool
}

// ok calls a tool that must succeed and returns its structuredContent,
// checked against the tool's outputSchema.
func (c *dayClient) ok(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	got := nodetest.CallOK(c.t, c.cs, tool, args)
	c.out.check(c.t, tool, got)
	c.checked[tool] = true
	return got
}

// refused calls a tool that must fail as a tool result (isError) and
// returns the sentence the model gets.
func (c *dayClient) refused(tool string, args map[string]any) string {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s as %s: %v, want an isError result", tool, c.name, err)
	}
	if !res.IsError {
		c.t.Fatalf("%s as %s succeeded, want an isError result: %v", tool, c.name, res.StructuredContent)
	}
	return nodetest.Text(res)
}

func testADayOnTheBoard(t *testing.T, s nodetest.Setup) {
	h := nodetest.Start(t, s)
	a := nodetest.NewAdminClient(t, h)
	admin := h.AdminToken(t, "owner")
	checked := map[string]bool{}
	var catalogue []string
	connect := func(name, token string) *dayClient {
		// Every member's client lets its person confirm deletions.
		cs, _ := h.Client(t, token, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			},
		})
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("ListTools as %s: %v", name, err)
		}
		if catalogue == nil {
			for _, tool := range tools.Tools {
				catalogue = append(catalogue, tool.Name)
			}
		}
		return &dayClient{t: t, name: name, cs: cs, out: compileOutputSchemas(t, tools.Tools), checked: checked}
	}
	owner := connect("owner", h.Token) // the owner is shown every tool

	// Morning: the owner brings in two assistants and a viewer.
	member := func(handle, kind, role string) string {
		t.Helper()
		body := fmt.Sprintf(`{"handle":%q,"displayName":%q,"kind":%q,"role":%q`, handle, strings.ToUpper(handle[:1])+handle[1:], kind, role)
		if kind == "MEMBER_KIND_ASSISTANT" {
			body += `,"sponsor":"owner"`
		}
		if code, m := a.Post(admin, "AddMember", body+"}"); code != 200 {
			t.Fatalf("AddMember %s = %d %v", handle, code, m)
		}
		// Every token gets every scope: the member's role is the limit.
		code, m := a.Post(admin, "CreateToken", fmt.Sprintf(`{"member":%q,"scopes":["read","comment","write"],"label":"day"}`, handle))
		if code != 200 {
			t.Fatalf("CreateToken %s = %d %v", handle, code, m)
		}
		return m["token"].(string)
	}
	claude := connect("claude", member("claude", "MEMBER_KIND_ASSISTANT", "MEMBER_ROLE_MEMBER"))
	cursor := connect("cursor", member("cursor", "MEMBER_KIND_ASSISTANT", "MEMBER_ROLE_MEMBER"))
	vera := connect("vera", member("vera", "MEMBER_KIND_HUMAN", "MEMBER_ROLE_VIEWER"))

	members := owner.ok("members_list", nil)["items"].([]any)
	var handles []string
	for _, m := range members {
		handles = append(handles, m.(map[string]any)["handle"].(string))
	}
	if want := []string{"claude", "cursor", "owner", "vera"}; !slices.Equal(handles, want) {
		t.Errorf("members_list = %v, want %v", handles, want)
	}

	// The owner sets the board up: a WIP limit on doing, standing rules.
	owner.ok("boards_update", map[string]any{
		"rules":      "Link the pull request in a comment before completing work.",
		"wip_limits": []any{map[string]any{"lane": "doing", "limit": 2}},
	})
	if msg := claude.refused("boards_update", map[string]any{"rules": "No rules."}); !strings.Contains(msg, "member") {
		t.Errorf("boards_update by a member = %q, want a refusal naming the role", msg)
	}
	owner.ok("context_add", map[string]any{"body": "The staging database is reset every night."})
	board := owner.ok("boards_get", nil)
	for _, l := range board["lanes"].([]any) {
		if l := l.(map[string]any); l["lane"] == "doing" && l["wip_limit"] != float64(2) {
			t.Errorf("boards_get lane doing = %v, want wip_limit 2", l)
		}
	}

	// The owner files the day's tasks; a near-duplicate is caught.
	create := func(title, label string) string {
		t.Helper()
		got := owner.ok("tasks_create", map[string]any{"title": title, "labels": []string{label}, "project": "launch"})
		return got["task"].(map[string]any)["ref"].(string)
	}
	login := create("Fix the login timeout", "backend")
	docs := create("Document the import API", "docs")
	ci := create("Speed up the CI pipeline", "infra")
	polish := create("Polish the settings page", "frontend")
	if msg := owner.refused("tasks_create", map[string]any{"title": "fix the Login timeout!"}); !strings.Contains(msg, login) {
		t.Errorf("tasks_create of a near-duplicate = %q, want the likely duplicate %s named", msg, login)
	}

	// Two tasks are approved for assistants, each with a plan.
	owner.ok("work_approve", map[string]any{"ref": login, "plan": "Raise the session timeout to 30 minutes; add a test.", "lease_minutes": 30})
	owner.ok("work_approve", map[string]any{"ref": docs, "plan": "Document every field of tasks_import in the README."})
	// Claude may only propose work, which a person approves on the decision's page;
	// its client cannot show one, so the proposal waits in the inbox.
	_, err := claude.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work_approve", Arguments: map[string]any{"ref": ci, "plan": "Anything."}})
	if err == nil || !strings.Contains(err.Error(), "url mode") {
		t.Errorf("work_approve by an assistant = %v, want -32021: a person approves it in the console", err)
	}

	// Claude reads its context: rules are instructions, notes are not.
	ctxt := claude.ok("context_get", nil)
	if ctxt["rules_trust"] != "instruction" || !strings.Contains(ctxt["rules"].(string), "pull request") {
		t.Errorf("context_get rules = %v (%v), want the rules as instruction", ctxt["rules"], ctxt["rules_trust"])
	}
	if notes := ctxt["items"].([]any); len(notes) != 1 || notes[0].(map[string]any)["trust"] != "untrusted" {
		t.Errorf("context_get notes = %v, want the owner's note marked untrusted", notes)
	}

	// Claude claims the oldest approved work and works on it.
	next := claude.ok("work_next", map[string]any{"idempotency_key": "claude-next-1"})
	work := next["work"].(map[string]any)
	if next["task"].(map[string]any)["ref"] != login || work["plan_trust"] != "instruction" || work["holder"] != "claude" {
		t.Fatalf("work_next for claude = %v, want %s with its plan as instruction, held by claude", next, login)
	}
	claudeLease := next["lease_token"].(string)
	// A retried claim (same key) returns the same claim, not a second task.
	if again := claude.ok("work_next", map[string]any{"idempotency_key": "claude-next-1"}); again["lease_token"] != claudeLease {
		t.Errorf("work_next retried with the same key = %v, want the first claim again", again)
	}
	claude.ok("tasks_move", map[string]any{"ref": login, "lane": "doing"})
	comment := map[string]any{"ref": login, "body": "Raised the timeout; PR #42.", "idempotency_key": "claude-comment-1"}
	first := claude.ok("comments_add", comment)
	retry := claude.ok("comments_add", comment)
	if first["comment"].(map[string]any)["id"] != retry["comment"].(map[string]any)["id"] {
		t.Errorf("comments_add retried with the same key = %v, want the first comment %v", retry, first)
	}
	claude.ok("work_heartbeat", map[string]any{"ref": login, "lease_token": claudeLease})
	done := claude.ok("work_complete", map[string]any{"ref": login, "lease_token": claudeLease, "test_status": "passed", "notes": "Timeout raised, test added."})
	if done["task"].(map[string]any)["lane"] != "done" || done["work"].(map[string]any)["state"] != "completed" {
		t.Errorf("work_complete = %v, want the task done and the work completed", done)
	}

	// Cursor, an admin assistant, claims the next work and takes on more.
	next = cursor.ok("work_next", nil)
	if next["task"].(map[string]any)["ref"] != docs {
		t.Fatalf("work_next for cursor = %v, want %s", next, docs)
	}
	cursorLease := next["lease_token"].(string)
	cursor.ok("tasks_assign", map[string]any{"ref": docs, "add": []string{"me"}})
	cursor.ok("tasks_move", map[string]any{"ref": docs, "lane": "doing"})
	cursor.ok("tasks_move", map[string]any{"ref": ci, "lane": "doing"})
	if msg := cursor.refused("tasks_move", map[string]any{"ref": polish, "lane": "doing"}); !strings.Contains(msg, "2") {
		t.Errorf("tasks_move into a full lane = %q, want a refusal naming the WIP limit", msg)
	}
	cursor.ok("tasks_flag", map[string]any{"ref": ci, "flagged": true, "reason": "Needs a bigger runner; a person must approve the cost."})
	cursor.ok("work_release", map[string]any{"ref": docs, "lease_token": cursorLease, "reason": "The import API is still changing; I need a person to settle it."})

	// Claude picks up what cursor handed back; cursor's lease is dead.
	next = claude.ok("work_next", nil)
	if next["task"].(map[string]any)["ref"] != docs || next["work"].(map[string]any)["claims"] != float64(2) {
		t.Fatalf("work_next after the release = %v, want %s on its second claim", next, docs)
	}
	if msg := cursor.refused("work_heartbeat", map[string]any{"ref": docs, "lease_token": cursorLease}); !strings.Contains(msg, "work_next") {
		t.Errorf("work_heartbeat with a released lease = %q, want a refusal telling to take new work", msg)
	}
	claude.ok("work_complete", map[string]any{"ref": docs, "lease_token": next["lease_token"], "test_status": "not_run", "notes": "Documented every field."})
	if empty := claude.ok("work_next", nil); empty["task"] != nil {
		t.Errorf("work_next on an empty queue = %v, want no task", empty)
	}

	// Claude files a follow-up, retrying after a (pretend) timeout.
	followUp := map[string]any{"title": "Add a login timeout setting", "idempotency_key": "claude-followup"}
	one := claude.ok("tasks_create", followUp)["task"].(map[string]any)["ref"]
	two := claude.ok("tasks_create", followUp)["task"].(map[string]any)["ref"]
	if one != two {
		t.Errorf("tasks_create retried with the same key made %v and %v, want one task", one, two)
	}
	if all := owner.ok("tasks_list", map[string]any{"project": "launch"})["items"].([]any); len(all) != 4 {
		t.Errorf("tasks_list project=launch = %d tasks, want 4", len(all))
	}
	if got := owner.ok("tasks_list", map[string]any{"flagged": true})["items"].([]any); len(got) != 1 || got[0].(map[string]any)["ref"] != ci {
		t.Errorf("tasks_list flagged = %v, want %s", got, ci)
	}

	// The viewer reads but may not move anything.
	if tools := nodetest.ListedTools(t, vera.cs); slices.Contains(tools, "tasks_move") || !slices.Contains(tools, "tasks_search") {
		t.Errorf("viewer's tools = %v, want reading tools only", tools)
	}
	hits := vera.ok("tasks_search", map[string]any{"query": "login"})["items"].([]any)
	if len(hits) < 1 {
		t.Errorf("tasks_search login = %v, want the login tasks", hits)
	}
	if msg := vera.refused("tasks_move", map[string]any{"ref": polish, "lane": "next"}); !strings.Contains(msg, "viewer") {
		t.Errorf("tasks_move by the viewer = %q, want a sentence saying a viewer cannot", msg)
	}

	// In the evening the owner reviews: history, comments, who did what.
	got := owner.ok("tasks_get", map[string]any{"ref": login, "include_comments": true, "include_history": true})
	var actions []string
	for _, e := range got["history"].([]any) {
		actions = append(actions, e.(map[string]any)["action"].(string))
	}
	for _, want := range []string{"task.created", "work.approved", "task.moved", "comment.added", "work.completed"} {
		if !slices.Contains(actions, want) {
			t.Errorf("history of %s = %v, want %s in it", login, actions, want)
		}
	}
	comments := got["comments"].([]any)
	if len(comments) != 2 { // claude's comment (once) and its completion notes
		t.Errorf("comments on %s = %v, want claude's comment and its completion notes", login, comments)
	}
	for _, c := range comments {
		if c := c.(map[string]any); c["author"] != "claude" || c["trust"] != "untrusted" {
			t.Errorf("comment %v read by the owner, want claude's, marked untrusted", c)
		}
	}
	for _, c := range claude.ok("comments_list", map[string]any{"ref": login})["items"].([]any) {
		if c.(map[string]any)["trust"] != "own" {
			t.Errorf("claude's comment read by claude = %v, want trust own", c)
		}
	}
	// The audit log is written in the background: wait for both calls.
	var events []any
	poll.Until(t, 10*time.Second, "audit_list to show claude's two work_complete calls", func() bool {
		events, _ = owner.ok("audit_list", map[string]any{"member": "claude", "tool": "work_complete"})["items"].([]any) // none yet: no items
		return len(events) >= 2
	})
	if len(events) != 2 {
		t.Errorf("audit_list of claude's work_complete calls = %d events, want 2", len(events))
	}

	// Tidying up: claude fixes its comment, the owner links and labels,
	// imports tomorrow's tasks, and deletes (then restores) one.
	mine := first["comment"].(map[string]any)
	edited := claude.ok("comments_edit", map[string]any{"id": mine["id"], "body": "Raised the timeout; see PR #43.", "expected_version": mine["version"]})
	if c := edited["comment"].(map[string]any); c["version"] != float64(2) || c["edited_at"] == nil {
		t.Errorf("comments_edit = %v, want version 2 with edited_at", c)
	}
	if msg := cursor.refused("comments_edit", map[string]any{"id": mine["id"], "body": "Not mine."}); !strings.Contains(msg, "own") {
		t.Errorf("comments_edit of claude's comment by cursor = %q, want a refusal: only one's own comments", msg)
	}
	owner.ok("tasks_update", map[string]any{"ref": polish, "add_labels": []string{"ux"}, "add_links": []any{map[string]any{"kind": "blocked_by", "ref": ci}}})
	links := owner.ok("tasks_get", map[string]any{"ref": ci, "include_links": true})["links"].([]any)
	if len(links) != 1 || links[0].(map[string]any)["kind"] != "blocks" || links[0].(map[string]any)["ref"] != polish {
		t.Errorf("links of %s = %v, want it to block %s", ci, links, polish)
	}
	owner.ok("tasks_import", map[string]any{"tasks": []any{map[string]any{"title": "Plan the retro"}, map[string]any{"title": "Book the room"}}})
	owner.ok("tasks_delete", map[string]any{"ref": polish})
	owner.ok("tasks_restore", map[string]any{"ref": polish})
	// A second board, for the design work; a member cannot add one.
	owner.ok("boards_create", map[string]any{"slug": "design", "name": "Design", "wip_limits": []any{map[string]any{"lane": "doing", "limit": 1}}})
	if msg := claude.refused("boards_create", map[string]any{"slug": "claude", "name": "Claude's"}); !strings.Contains(msg, "member") {
		t.Errorf("boards_create by a member = %q, want a refusal naming the role", msg)
	}
	owner.ok("tasks_create", map[string]any{"board": "design", "title": "Sketch the onboarding"})
	if items := owner.ok("boards_list", nil)["items"].([]any); len(items) != 2 {
		t.Errorf("boards_list after boards_create = %v, want main and design", items)
	}
	owner.ok("whoami", nil)

	// Every tool's answer was checked against its outputSchema.
	for _, tool := range catalogue {
		if !checked[tool] {
			t.Errorf("the day never checked an answer of %s against its outputSchema", tool)
		}
	}
}

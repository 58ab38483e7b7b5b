package tests

import (
	"maps"
	"strconv"
	"testing"
)

// isoCursor is a next_cursor a tenant's owner got from a list, with the
// arguments of the call that returned it.
type isoCursor struct {
	args   map[string]any
	cursor string
}

// isoKeyed is a write a tenant's member made with an idempotency key:
// another tenant's caller may present the same key, with the same
// arguments or others.
type isoKeyed struct {
	tool string
	args map[string]any // without the key
	key  string
}

// isoLease is a lease token work_next gave a tenant's assistant for ref;
// live while the lease is held, else ended (released or completed).
type isoLease struct {
	ref, token string
	live       bool
}

// plantCatalogue fills the tenant with what the tools of the full
// catalogue read, writing it through the tools as the tenant's own
// members: board names, rules and WIP limits, context notes, flags,
// links, assignments and moves, an edited comment, and work approved,
// claimed under live leases, released and completed; several of these
// writes with idempotency keys. Then it collects the cursors of every
// list.
func (w *isoWorld) plantCatalogue(t *testing.T, handles []string) {
	t.Helper()
	owner, admin, member, assistant := w.callers[0], w.callers[1], w.callers[2], w.callers[7]
	refs := w.ids.refs
	w.call(t, owner.token, "boards_update", map[string]any{
		"board": "main", "rules": "Follow " + w.word("the main board's rules"),
		"wip_limits": []map[string]any{{"lane": "doing", "limit": 20}, {"lane": "next", "limit": 30}},
	})
	w.keyed(t, admin, "boards_update", map[string]any{
		"board": w.ids.boards[0], "name": "Board " + w.word("a renamed board's name"), "rules": "Mind " + w.word("a board's new rules"),
		"wip_limits": []map[string]any{{"lane": "doing", "limit": 10}},
	})
	for i, c := range []*isoCaller{owner, member, w.callers[5], admin} {
		args := map[string]any{"board": "main", "body": "Decided " + w.word("a context note")}
		if i == 3 {
			args["board"] = w.ids.boards[0]
		}
		if i == 1 {
			w.keyed(t, c, "context_add", args)
		} else {
			w.call(t, c.token, "context_add", args)
		}
	}
	w.keyed(t, member, "tasks_flag", map[string]any{"ref": refs[0], "flagged": true, "reason": "Waiting for " + w.word("a flag's reason")})
	w.call(t, admin.token, "tasks_flag", map[string]any{"ref": refs[1], "flagged": true, "reason": "Blocked by " + w.word("a flag's reason")})
	w.call(t, member.token, "tasks_update", map[string]any{"ref": refs[2], "add_links": []map[string]any{
		{"kind": "blocks", "ref": refs[3]}, {"kind": "relates_to", "ref": refs[4]},
	}})
	w.keyed(t, member, "tasks_update", map[string]any{"ref": refs[1], "add_labels": []string{w.ids.labels[0]}, "project": w.ids.projects[1]})
	w.keyed(t, owner, "tasks_assign", map[string]any{"ref": refs[3], "add": []string{handles[2]}})
	w.keyed(t, admin, "tasks_move", map[string]any{"ref": refs[4], "lane": "next", "position": 0})
	w.keyed(t, member, "tasks_create", map[string]any{"title": "Keyed " + w.word("a keyed task's title"), "allow_duplicate": true})
	for range 2 {
		w.comment(t, owner, refs[0], "Comment "+w.word("a comment on "+refs[0]))
	}
	w.keyed(t, member, "comments_add", map[string]any{"ref": refs[0], "body": "Keyed " + w.word("a keyed comment")})
	own := w.comment(t, member, refs[2], "Draft "+w.word("a comment to be edited"))
	w.keyed(t, member, "comments_edit", map[string]any{"id": own, "body": "Edited " + w.word("an edited comment"), "expected_version": 1})
	w.plantWork(t, owner, assistant, refs[len(refs)-4:])
	w.collectCursors(t)
}

// plantWork approves work on refs (the first with a key), has the
// assistant claim all of it (one claim with a key), then release the
// first claim and complete the third: the second and fourth stay held
// under live leases.
func (w *isoWorld) plantWork(t *testing.T, approver, assistant *isoCaller, refs []string) {
	t.Helper()
	for i, ref := range refs {
		args := map[string]any{"ref": ref, "plan": "Plan: " + w.word("a work plan"), "lease_minutes": 120, "max_claims": 5}
		if i == 0 {
			w.keyed(t, approver, "work_approve", args)
		} else {
			w.call(t, approver.token, "work_approve", args)
		}
	}
	var leases []isoLease
	for i := range refs {
		var got map[string]any
		if i == 1 {
			got = w.keyed(t, assistant, "work_next", map[string]any{})
		} else {
			got = w.call(t, assistant.token, "work_next", map[string]any{})
		}
		task, _ := got["task"].(map[string]any)
		token, _ := got["lease_token"].(string)
		if task == nil || token == "" {
			t.Fatalf("tenant %s: work_next claimed nothing: %v", w.name, got)
		}
		w.mark(token, "a lease token")
		leases = append(leases, isoLease{ref: task["ref"].(string), token: token, live: true})
	}
	w.keyed(t, assistant, "work_release", map[string]any{"ref": leases[0].ref, "lease_token": leases[0].token, "reason": "Stuck on " + w.word("a release reason")})
	w.keyed(t, assistant, "work_complete", map[string]any{"ref": leases[2].ref, "lease_token": leases[2].token, "test_status": "passed", "notes": "Did " + w.word("a completion note")})
	leases[0].live, leases[2].live = false, false
	w.ids.leases = leases
	w.ids.held = []string{leases[1].ref, leases[3].ref}
}

// keyed makes a call of tool as c with a fresh idempotency key, and keeps
// the key and the arguments.
func (w *isoWorld) keyed(t *testing.T, c *isoCaller, tool string, args map[string]any) map[string]any {
	t.Helper()
	key := w.word("an idempotency key of " + c.who)
	w.ids.keyed = append(w.ids.keyed, isoKeyed{tool: tool, args: maps.Clone(args), key: key})
	withKey := maps.Clone(args)
	withKey["idempotency_key"] = key
	return w.call(t, c.token, tool, withKey)
}

// comment adds a comment to ref as c and returns its id, which another
// tenant's caller will try.
func (w *isoWorld) comment(t *testing.T, c *isoCaller, ref, body string) int {
	t.Helper()
	got := w.call(t, c.token, "comments_add", map[string]any{"ref": ref, "body": body})
	id := int(got["comment"].(map[string]any)["id"].(float64))
	w.ids.commentIDs = append(w.ids.commentIDs, strconv.Itoa(id))
	return id
}

// collectCursors collects, as the owner, a next_cursor of every list
// under several filters and sorts.
func (w *isoWorld) collectCursors(t *testing.T) {
	t.Helper()
	lists := []struct {
		tool string
		args map[string]any
	}{
		{"boards_list", map[string]any{"limit": 1}},
		{"members_list", map[string]any{"limit": 2}},
		{"context_get", map[string]any{"board": "main", "limit": 1}},
		{"tasks_list", map[string]any{"limit": 2, "sort": "updated"}},
		{"tasks_list", map[string]any{"limit": 1, "sort": "position", "board": "main"}},
		{"tasks_list", map[string]any{"limit": 1, "label": w.ids.labels[0]}},
		{"tasks_list", map[string]any{"limit": 1, "project": w.ids.projects[0]}},
		{"tasks_list", map[string]any{"limit": 1, "assignee": "me", "fields": []string{"title", "lane"}}},
		{"tasks_list", map[string]any{"limit": 2, "text": "task", "kind": "task"}},
		{"tasks_search", map[string]any{"query": "task", "limit": 1}},
		{"tasks_search", map[string]any{"query": "note", "limit": 2, "include_done": true}},
		{"comments_list", map[string]any{"ref": w.ids.refs[0], "limit": 1}},
		{"comments_list", map[string]any{"ref": w.ids.refs[0], "limit": 2}},
	}
	w.ids.cursors = map[string][]isoCursor{}
	for _, l := range lists {
		if c, _ := w.call(t, w.owner, l.tool, l.args)["next_cursor"].(string); c != "" {
			w.mark(c, "a cursor of "+l.tool)
			w.ids.cursors[l.tool] = append(w.ids.cursors[l.tool], isoCursor{args: l.args, cursor: c})
		}
	}
	for _, l := range lists {
		if len(w.ids.cursors[l.tool]) == 0 {
			t.Fatalf("tenant %s: %s gave no next_cursor under any of its filters", w.name, l.tool)
		}
	}
}

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/node/nodetest"
)

// isoWorld is one tenant as the isolation test planted it: who acts in
// it, the identifiers a caller of another tenant will try, and the
// marker words hidden in its data, which no answer to another tenant's
// caller may hold.
type isoWorld struct {
	name  string // "A" or "B", for messages
	slug  string
	id    int
	owner string // the owner's token
	// ownerAdmin is the owner's admin token, for the admin API.
	ownerAdmin string
	label      string // the session label every call of its members carries
	callers    []*isoCaller
	markers    map[string]string // lower-case marker → where it was planted
	ids        isoIDs
	rng        *rand.Rand
	wire       *isoWire
	settles    int // calls settle made, for their labels
}

// isoIDs are a tenant's identifiers, as another tenant's caller could
// learn or guess them. A tenant also has identifiers kept out of these
// lists (a board, a member, a token): no caller ever names them, so they
// stay markers that nobody else may ever see.
type isoIDs struct {
	refs, deletedRefs         []string
	boards                    []string // slugs no other tenant has
	handles, memberIDs        []string
	tokenIDs                  []string
	taskCursors, auditCursors []string
	memberPages, tokenPages   []string
	states                    []isoState // unanswered confirmations of tasks_delete
	sessions                  []string   // legacy session ids
	labels, projects          []string   // on its tasks
	words                     []string   // in its tasks' titles and notes only, for searches
	commentIDs                []string
	cursors                   map[string][]isoCursor // by tool
	keyed                     []isoKeyed             // writes made with idempotency keys
	leases                    []isoLease
	held                      []string // refs of work held under a live lease
}

// isoState is a requestState a tenant's owner got for deleting ref.
type isoState struct{ ref, state string }

// isoCaller is a member of a tenant with one of its tokens.
type isoCaller struct {
	who   string // e.g. "A viewer"
	token string
	// admin is the admin token of its member, which the admin API's probes
	// send instead of token (an MCP token, which never administers); ""
	// for a member who has none.
	admin  string
	legacy string // its own legacy session, once opened
}

// managers are the callers who may manage the tenant and write: the
// owner (two tokens) and the admin.
func (w *isoWorld) managers() []*isoCaller {
	return []*isoCaller{w.callers[0], w.callers[1], w.callers[3]}
}

// word returns a fresh marker word, noting where it is planted.
func (w *isoWorld) word(where string) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := []byte{'q'}
	for range 9 {
		b = append(b, letters[w.rng.IntN(len(letters))])
	}
	s := string(b)
	w.mark(s, where)
	return s
}

func (w *isoWorld) mark(s, where string) {
	if w.markers == nil {
		w.markers = map[string]string{}
	}
	w.markers[strings.ToLower(s)] = where
}

// call makes an MCP tool call as token, failing the test unless it
// succeeds, and returns its structured content.
func (w *isoWorld) call(t *testing.T, token, tool string, args any) map[string]any {
	t.Helper()
	a := w.wire.mcp(token, w.label, isoCall{method: "tools/call", name: tool, params: toolParams(tool, args)})
	if class, failed := a.class(); failed {
		t.Fatalf("tenant %s: %s %s = %s %s", w.name, tool, mustJSON(t, args), class, a.body)
	}
	var m struct {
		Result struct{ StructuredContent map[string]any }
	}
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("tenant %s: %s answered %s", w.name, tool, a.body)
	}
	return m.Result.StructuredContent
}

// deleteTask deletes ref as the owner, confirmed; with confirm false it
// only asks, and returns the requestState it got.
func (w *isoWorld) deleteTask(t *testing.T, ref string, confirm bool) string {
	t.Helper()
	c := isoCall{method: "tools/call", name: "tasks_delete", params: toolParams("tasks_delete", map[string]any{"ref": ref}), caps: `{"elicitation":{}}`}
	a := w.wire.mcp(w.owner, w.label, c)
	state := a.requestState()
	if state == "" {
		t.Fatalf("tenant %s: tasks_delete %s = %s, want input_required", w.name, ref, a.body)
	}
	if !confirm {
		return state
	}
	c.params = withConfirmation(c.params, state)
	if a = w.wire.mcp(w.owner, w.label, c); strings.Contains(string(a.body), `"isError":true`) || a.status != http.StatusOK {
		t.Fatalf("tenant %s: confirmed tasks_delete %s = %d %s", w.name, ref, a.status, a.body)
	}
	return state
}

// toolParams is the params of a tools/call of tool with args.
func toolParams(tool string, args any) string {
	b, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	return string(b)
}

// withConfirmation adds a person's yes and state to tools/call params.
func withConfirmation(params, state string) string {
	return strings.TrimSuffix(params, "}") +
		`,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"` + state + `"}`
}

// admin calls the admin API over JSON as bearer, failing the test unless
// it succeeds.
func (w *isoWorld) admin(t *testing.T, bearer, method string, req any) map[string]any {
	t.Helper()
	a := w.wire.adminJSON(bearer, method, mustJSON(t, req))
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil || a.status != http.StatusOK {
		t.Fatalf("tenant %s: %s %s = %d %s", w.name, method, mustJSON(t, req), a.status, a.body)
	}
	return m
}

// plant fills the tenant: boards, members of every role and kind (one
// removed), tokens (one revoked), tasks with notes and comments (some
// deleted, one restored), and so audit events; then it collects the
// identifiers another tenant's caller will try. Task, comment and note
// numbers start after firstRef, so that none of one tenant exists in the
// other.
func (w *isoWorld) plant(t *testing.T, h *nodetest.Harness, ownerHandle string, firstRef, tasks int) {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	if firstRef > 0 {
		if err := h.Sys.DB.Tenant.UpdateOneID(w.id).SetTaskSeq(firstRef).SetCommentSeq(firstRef).SetNoteSeq(firstRef).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	boards := []string{"main"}
	for i := range 3 {
		slug := w.word(fmt.Sprintf("board %d's slug", i))
		err := h.Sys.DB.Board.Create().SetTenantID(w.id).SetSlug(slug).
			SetName("Board " + w.word("a board's name")).SetRules("Keep " + w.word("a board's rules") + " in mind").
			Exec(tenantscope.NewContext(ctx, w.id))
		if err != nil {
			t.Fatal(err)
		}
		boards = append(boards, slug)
	}
	w.ids.boards = boards[1:3] // the last one is never named

	handles := w.plantMembers(t, ownerHandle)
	writers := w.callers[:4] // the owner (every scope), the admin, the member and the owner's second token
	commenters := append(slices.Clone(writers), w.callers[5])
	for range 3 {
		w.ids.labels = append(w.ids.labels, w.word("a label"))
	}
	w.ids.projects = []string{w.word("a project"), w.word("a project")}
	for i := range tasks {
		c := writers[w.rng.IntN(len(writers))]
		title, note := w.word("a task's title"), w.word("a task's note")
		w.ids.words = append(w.ids.words, title, note)
		args := map[string]any{
			"title": "Task " + title, "note": "Note " + note,
			"board": boards[w.rng.IntN(len(boards))], "assignees": []string{handles[w.rng.IntN(len(handles))]},
			"labels": []string{pick(w.rng, w.ids.labels), pick(w.rng, w.ids.labels)}, "allow_duplicate": true,
		}
		if i%2 == 0 {
			args["project"] = w.ids.projects[i%4/2]
		}
		ref := w.call(t, c.token, "tasks_create", args)["task"].(map[string]any)["ref"].(string)
		for range w.rng.IntN(3) {
			w.comment(t, commenters[w.rng.IntN(len(commenters))], ref, "Comment "+w.word("a comment on "+ref))
		}
		if i%3 == 1 {
			changed := w.word("a changed note")
			w.ids.words = append(w.ids.words, changed)
			w.call(t, c.token, "tasks_update", map[string]any{"ref": ref, "note": "Changed " + changed})
		}
	}
	w.call(t, w.owner, "tasks_import", map[string]any{"board": boards[1], "tasks": []map[string]any{
		{"title": "Imported " + w.word("an imported title"), "note": w.word("an imported note")},
		{"title": "Imported " + w.word("an imported title"), "lane": "doing"},
	}})
	w.collect(t, tasks)
	w.plantCatalogue(t, handles)
}

// plantMembers adds the members and their tokens, and returns the
// handles tasks may be assigned to.
func (w *isoWorld) plantMembers(t *testing.T, ownerHandle string) []string {
	t.Helper()
	type spec struct{ role, kind, sponsor, scopes string }
	specs := []spec{
		{"MEMBER_ROLE_ADMIN", "MEMBER_KIND_HUMAN", "", "read,comment,write"},
		{"MEMBER_ROLE_MEMBER", "MEMBER_KIND_HUMAN", "", "read,comment,write"},
		{"MEMBER_ROLE_VIEWER", "MEMBER_KIND_HUMAN", "", "read,comment,write"},
		{"MEMBER_ROLE_MEMBER", "MEMBER_KIND_ASSISTANT", "sponsor", "read,comment"},
		{"MEMBER_ROLE_MEMBER", "MEMBER_KIND_HUMAN", "", "read"}, // never named by a probe
		{"MEMBER_ROLE_MEMBER", "MEMBER_KIND_HUMAN", "", "read"}, // removed
	}
	names := []string{"admin", "member", "viewer", "assistant", "quiet member", "removed member"}
	ownerSecond := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": ownerHandle, "scopes": []string{"read", "comment", "write"}, "label": w.word("a token label")})
	w.callers = []*isoCaller{{who: w.name + " owner", token: w.owner}}
	handles := []string{ownerHandle}
	var tokens []string
	for i, s := range specs {
		handle := w.word("the " + names[i] + "'s handle")
		req := map[string]any{"handle": handle, "displayName": "Name " + w.word("the "+names[i]+"'s display name"), "role": s.role, "kind": s.kind}
		if s.sponsor != "" {
			req["sponsor"] = handles[1] // the admin
		}
		w.admin(t, w.ownerAdmin, "AddMember", req)
		tok := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": handle, "scopes": strings.Split(s.scopes, ","), "label": w.word("a token label")})
		tokens = append(tokens, tok["token"].(string))
		handles = append(handles, handle)
	}
	// callers: owner, admin, member, owner's second token, viewer,
	// assistant, the owner with a read-only token, and the assistant with
	// a token that may write (to claim work).
	ownerRead := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": ownerHandle, "scopes": []string{"read"}, "label": w.word("a token label")})
	assistantWrite := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": handles[4], "scopes": []string{"read", "comment", "write"}, "label": w.word("a token label")})
	w.callers = append(w.callers,
		&isoCaller{who: w.name + " admin", token: tokens[0]},
		&isoCaller{who: w.name + " member", token: tokens[1]},
		&isoCaller{who: w.name + " owner (second token)", token: ownerSecond["token"].(string)},
		&isoCaller{who: w.name + " viewer", token: tokens[2]},
		&isoCaller{who: w.name + " assistant (read, comment)", token: tokens[3]},
		&isoCaller{who: w.name + " owner (read-only token)", token: ownerRead["token"].(string)},
		&isoCaller{who: w.name + " assistant (read, comment, write)", token: assistantWrite["token"].(string)},
	)
	adminAdmin := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": handles[1], "admin": true, "label": w.word("a token label")})
	for _, c := range []*isoCaller{w.callers[0], w.callers[3], w.callers[6]} { // the owner's
		c.admin = w.ownerAdmin
	}
	w.callers[1].admin = adminAdmin["token"].(string)
	// A token revoked, a member removed (with their token revoked).
	spare := w.admin(t, w.ownerAdmin, "CreateToken", map[string]any{"member": handles[3], "scopes": []string{"read"}, "label": w.word("a revoked token's label")})
	w.admin(t, w.ownerAdmin, "RevokeToken", map[string]any{"id": spare["info"].(map[string]any)["id"]})
	w.admin(t, w.ownerAdmin, "RemoveMember", map[string]any{"handle": handles[6]})
	for _, c := range w.callers {
		w.mark(c.token, c.who+"'s token")
		if c.admin != "" {
			w.mark(c.admin, c.who+"'s admin token")
		}
	}
	w.ids.handles = append(slices.Clone(handles[:5]), handles[6]) // not the quiet member
	return handles[:5]
}

// collect reads back, as the owner, what another tenant's caller will
// try: refs live and deleted (three deleted, one of them restored), ids of
// members and tokens, cursors and page tokens, unanswered confirmations
// and a legacy session.
func (w *isoWorld) collect(t *testing.T, tasks int) {
	t.Helper()
	cursor := ""
	for {
		page := w.call(t, w.owner, "tasks_list", map[string]any{"limit": 3, "cursor": cursor})
		for _, task := range page["items"].([]any) {
			w.ids.refs = append(w.ids.refs, task.(map[string]any)["ref"].(string))
		}
		if cursor, _ = page["next_cursor"].(string); cursor == "" {
			break
		}
		w.ids.taskCursors = append(w.ids.taskCursors, cursor)
	}
	for _, i := range w.rng.Perm(len(w.ids.refs))[:3] {
		w.deleteTask(t, w.ids.refs[i], true)
		w.ids.deletedRefs = append(w.ids.deletedRefs, w.ids.refs[i])
	}
	restored := w.ids.deletedRefs[0]
	c := isoCall{method: "tools/call", name: "tasks_restore", params: toolParams("tasks_restore", map[string]any{"ref": restored}), caps: `{"elicitation":{}}`}
	state := w.wire.mcp(w.owner, w.label, c).requestState()
	c.params = withConfirmation(c.params, state)
	if a := w.wire.mcp(w.owner, w.label, c); strings.Contains(string(a.body), `"isError":true`) {
		t.Fatalf("tenant %s: tasks_restore %s = %s", w.name, restored, a.body)
	}
	w.ids.deletedRefs = w.ids.deletedRefs[1:]
	w.ids.refs = slices.DeleteFunc(w.ids.refs, func(r string) bool { return slices.Contains(w.ids.deletedRefs, r) })
	for _, ref := range w.ids.refs[:2] {
		w.ids.states = append(w.ids.states, isoState{ref: ref, state: w.deleteTask(t, ref, false)})
	}
	w.collectAdmin(t)
	w.ids.sessions = []string{w.wire.legacySession(w.owner)}
	if len(w.ids.refs) < tasks/2 || len(w.ids.taskCursors) == 0 || len(w.ids.auditCursors) == 0 || len(w.ids.memberIDs) != len(w.ids.handles) {
		t.Fatalf("tenant %s: collected %+v", w.name, w.ids)
	}
}

// collectAdmin collects audit cursors, and through the admin API member
// and token ids and page tokens.
func (w *isoWorld) collectAdmin(t *testing.T) {
	t.Helper()
	for _, filter := range []map[string]any{{"limit": 2}, {"limit": 1, "member": "me"}, {"limit": 1, "outcome": "ok"}} {
		if c, _ := w.call(t, w.owner, "audit_list", filter)["next_cursor"].(string); c != "" {
			w.ids.auditCursors = append(w.ids.auditCursors, c)
		}
	}
	members := w.admin(t, w.ownerAdmin, "ListMembers", map[string]any{"showRemoved": true})["members"].([]any)
	for _, m := range members {
		if m := m.(map[string]any); slices.Contains(w.ids.handles, m["handle"].(string)) {
			w.ids.memberIDs = append(w.ids.memberIDs, m["id"].(string))
		}
	}
	for _, tok := range w.admin(t, w.ownerAdmin, "ListTokens", map[string]any{})["tokens"].([]any) {
		id := tok.(map[string]any)["id"].(string)
		w.mark(id, "a token id")
		w.ids.tokenIDs = append(w.ids.tokenIDs, id)
	}
	w.ids.tokenIDs = w.ids.tokenIDs[:len(w.ids.tokenIDs)-1] // the last is never named
	for _, req := range []map[string]any{{"pageSize": 1}, {"pageSize": 2, "showRemoved": true}} {
		w.ids.memberPages = append(w.ids.memberPages, w.admin(t, w.ownerAdmin, "ListMembers", req)["nextPageToken"].(string))
	}
	for _, req := range []map[string]any{{"pageSize": 1}, {"pageSize": 3}} {
		w.ids.tokenPages = append(w.ids.tokenPages, w.admin(t, w.ownerAdmin, "ListTokens", req)["nextPageToken"].(string))
	}
}

package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestConsoleBoard: a task an assistant-facing MCP client created shows
// on the person's board, escaped; the person moves it with the card's
// form and comments on it, and the MCP client reads both changes, made
// as the owner through the same RPCs; a move at a stale version is
// refused on the page.
func TestConsoleBoard(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			b := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignIn(t, b, signInLink(t, h, "default", "owner"))

			cs, _ := h.Client(t, h.Token, nil)
			hostile := `<script>alert("x")</script> plan`
			task := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": hostile, "note": "see javascript:alert(1) and https://example.com/spec"})["task"].(map[string]any)
			ref := task["ref"].(string)

			board := b.get("/t/default/")
			if !strings.Contains(board, `data-ref="`+ref+`"`) || !strings.Contains(board, `data-lane="backlog"`) {
				t.Fatalf("the board does not show %s in backlog:\n%s", ref, board)
			}
			if strings.Contains(board, hostile) || !strings.Contains(board, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; plan`) {
				t.Errorf("the board does not escape the title %s", hostile)
			}

			code, loc, body := b.submit(board, `data-ref="`+ref+`"`, url.Values{"lane": {"doing"}})
			if code != http.StatusSeeOther || loc != "/t/default/" {
				t.Fatalf("moving %s = %d to %q, want 303 back to the board:\n%s", ref, code, loc, body)
			}
			got := nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": ref, "include_comments": true, "include_history": true})
			if lane := got["task"].(map[string]any)["lane"]; lane != "doing" {
				t.Errorf("after the console's move, tasks_get says lane %v, want doing", lane)
			}
			if after := b.get("/t/default/"); !strings.Contains(after[strings.Index(after, `data-lane="doing"`):], `data-ref="`+ref+`"`) {
				t.Errorf("the board does not show %s in doing after the move", ref)
			}
			if code, _, body := b.submit(board, `data-ref="`+ref+`"`, url.Values{"lane": {"done"}}); code != http.StatusConflict {
				t.Errorf("a move from the stale page = %d, want 409 (the task changed since):\n%s", code, body)
			}

			page := b.get("/t/default/tasks/" + ref)
			if strings.Contains(page, `href="javascript:`) || !strings.Contains(page, `<a href="https://example.com/spec"`) {
				t.Error("the task page links a javascript: URL or does not link the https one")
			}
			if code, loc, _ := b.submit(page, `<form id="comment"`, url.Values{"body": {"Looks <b>good</b> to me"}}); code != http.StatusSeeOther || !strings.HasPrefix(loc, "/t/default/tasks/"+ref) {
				t.Fatalf("commenting = %d to %q, want 303 back to the task", code, loc)
			}
			page = b.get("/t/default/tasks/" + ref)
			if !strings.Contains(page, `<li class="comment"`) || !strings.Contains(page, "Looks &lt;b&gt;good&lt;/b&gt; to me") {
				t.Errorf("the task page does not show the comment, escaped:\n%s", page)
			}
			if !strings.Contains(page, `<ol id="history">`) || !strings.Contains(page, "moved "+ref+" from backlog to doing") {
				t.Errorf("the task page's history does not show the move:\n%s", page)
			}
			comments := nodetest.CallOK(t, cs, "comments_list", map[string]any{"ref": ref})["items"].([]any)
			if len(comments) != 1 || comments[0].(map[string]any)["author"] != "owner" {
				t.Errorf("comments_list = %v, want the console's comment by owner", comments)
			}
		})
	}
}

// TestConsoleRoleRefusal: a viewer signed in to the console sees the
// board but cannot move a card: the worker refuses the session's member
// as it refuses a viewer's token, and the page names the role.
func TestConsoleRoleRefusal(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			if _, err := tenancy.AddMember(context.Background(), h.Sys.DB, "default", tenancy.MemberSpec{Handle: "vera", Name: "Vera", Role: member.RoleViewer}); err != nil {
				t.Fatal(err)
			}
			cs, _ := h.Client(t, h.Token, nil)
			ref := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Read only"})["task"].(map[string]any)["ref"].(string)

			b := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignInAs(t, b, signInLink(t, h, "default", "vera"), "vera@example.com")
			board := b.get("/t/default/")
			code, _, body := b.submit(board, `data-ref="`+ref+`"`, url.Values{"lane": {"doing"}})
			if code != http.StatusForbidden || !strings.Contains(body, "Your role (viewer) does not allow this.") {
				t.Errorf("a viewer's move = %d, want 403 naming the role:\n%s", code, body)
			}
			if lane := nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": ref})["task"].(map[string]any)["lane"]; lane != "backlog" {
				t.Errorf("after a viewer's refused move the task is in %v, want backlog", lane)
			}
		})
	}
}

package tests

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestConsoleEditComment: a person edits their own comment on the task
// page; a stale edit (the comment changed since the form was filled) is
// not saved, and the page keeps the typed text; an assistant's comment
// has no edit form, and a forged edit of it is refused with the
// service's sentence and changes nothing. A comment the service refuses
// keeps its text in the form too.
func TestConsoleEditComment(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			b := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignIn(t, b, signInLink(t, h, "default", "owner"))
			bot := addBot(t, h)
			cs, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", bot.ID, authz.AllScopes), nil)
			ref := nodetest.CallOK(t, cs, "tasks_create", map[string]any{"title": "Ship it"})["task"].(map[string]any)["ref"].(string)
			nodetest.CallOK(t, cs, "comments_add", map[string]any{"ref": ref, "body": "bot was here"})
			path := "/t/default/tasks/" + ref

			page := b.get(path)
			if code, _, body := b.submit(page, `<form id="comment"`, url.Values{"body": {"First tho"}}); code != http.StatusSeeOther {
				t.Fatalf("adding a comment = %d, want 303:\n%s", code, body)
			}
			page = b.get(path)
			if n := strings.Count(page, `class="edit-comment"`); n != 1 {
				t.Fatalf("the task page has %d comment edit forms, want 1 (hers, not the assistant's):\n%s", n, page)
			}
			stale := page
			code, loc, body := b.submit(page, `class="edit-comment"`, url.Values{"body": {"First thought, <b>fixed</b>"}})
			if code != http.StatusSeeOther || !strings.Contains(loc, "#comment-") {
				t.Fatalf("editing her comment = %d to %q, want 303 to the comment:\n%s", code, loc, body)
			}
			page = b.get(path)
			if !strings.Contains(page, "First thought, &lt;b&gt;fixed&lt;/b&gt;") || !strings.Contains(page, "(edited)") {
				t.Errorf("after the edit the page does not show the new text, escaped, marked edited:\n%s", page)
			}

			code, _, body = b.submit(stale, `class="edit-comment"`, url.Values{"body": {"An edit from an old tab"}})
			if code != http.StatusConflict || !strings.Contains(body, "was edited since you opened the page") || !strings.Contains(body, ">An edit from an old tab</textarea>") {
				t.Errorf("a stale edit = %d, want 409 saying so with the typed text kept:\n%s", code, body)
			}
			comments := nodetest.CallOK(t, cs, "comments_list", map[string]any{"ref": ref})["items"].([]any)
			var botID float64
			for _, c := range comments {
				c := c.(map[string]any)
				if c["author"] == "bot" {
					botID = c["id"].(float64)
				}
				if strings.Contains(c["body"].(string), "old tab") {
					t.Errorf("the stale edit was saved: %v", c)
				}
			}

			// A forged edit of the assistant's comment (no form offers it).
			csrf := hiddenRE.FindStringSubmatch(page[strings.Index(page, `<form id="comment"`):])[2]
			code, _, body = b.do("POST", path+"/comments/"+strconv.Itoa(int(botID)), url.Values{"csrf": {csrf}, "body": {"hijacked"}})
			if code != http.StatusForbidden || strings.Contains(body, "Your role") {
				t.Errorf("editing the assistant's comment = %d, want 403 with the service's reason:\n%s", code, body)
			}
			for _, c := range nodetest.CallOK(t, cs, "comments_list", map[string]any{"ref": ref})["items"].([]any) {
				if c.(map[string]any)["body"] == "hijacked" {
					t.Error("the assistant's comment was changed by another member")
				}
			}

			// A comment the service refuses (too long) keeps its text.
			long := strings.Repeat("x", 20001)
			code, _, body = b.submit(b.get(path), `<form id="comment"`, url.Values{"body": {long}})
			if code != http.StatusBadRequest || !strings.Contains(body, long+"</textarea>") {
				t.Errorf("a refused comment = %d, want 400 with the text kept in the form", code)
			}
		})
	}
}

package tests

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// cardIn is a JavaScript condition: the card ref is in lane of the board.
func cardIn(ref, lane string) string {
	return `!!document.querySelector(` + jsString(`main#board section.lane[data-lane="`+lane+`"] article.card[data-ref="`+ref+`"]`) + `)`
}

// laneOf is the lane the board keeps ref in, as an MCP client reads it.
func laneOf(t *testing.T, cs *mcp.ClientSession, ref string) string {
	t.Helper()
	lane, _ := nodetest.CallOK(t, cs, "tasks_get", map[string]any{"ref": ref})["task"].(map[string]any)["lane"].(string)
	return lane
}

// TestBrowserMoveCard: a person moves one card by dragging it to another
// lane with the mouse, and another with the keyboard alternative (the
// card's lane select and its Move button); the board keeps both moves,
// and the page shows them, on a reload too. Also: the board and a task
// page pass axe.
func TestBrowserMoveCard(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	owner, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Write the launch plan", "kind": "feature", "size": "s"})
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Book the venue for the retro"})
	nodetest.CallOK(t, owner, "comments_add", map[string]any{"ref": "T-1", "body": "Started on the outline."})
	furnish(t, s, owner)
	p := signedIn(t, s)
	p.waitFor("both cards in backlog", cardIn("T-1", "backlog")+" && "+cardIn("T-2", "backlog"))

	drag := chromedp.DragAndDrop(chromedp.CSS(`article.card[data-ref="T-1"]`), chromedp.CSS(`section.lane[data-lane="doing"]`))
	if err := chromedp.Do(p.ctx, drag); err != nil {
		t.Fatalf("dragging T-1 to doing: %v", err)
	}
	p.waitFor("T-1 in doing after the drag", cardIn("T-1", "doing"))
	if got := laneOf(t, owner, "T-1"); got != "doing" {
		t.Errorf("T-1 dragged to doing is in %q, want doing", got)
	}

	// A fresh page: the live refresh after the drag replaces the board,
	// and with it the element that has the keyboard's focus.
	p.open("/t/" + s.tenant + "/")
	sel := `article.card[data-ref="T-2"] form.move select[name="lane"]`
	if err := chromedp.Do(p.ctx,
		chromedp.Focus(chromedp.CSS(sel)),
		chromedp.SetValue(chromedp.CSS(sel), "next"),
		chromedp.Focus(chromedp.CSS(`article.card[data-ref="T-2"] form.move button`)),
		chromedp.KeyEvent(kb.Enter),
	); err != nil {
		t.Fatalf("moving T-2 with the keyboard: %v", err)
	}
	p.waitFor("T-2 in next after Move", cardIn("T-2", "next"))
	if got := laneOf(t, owner, "T-2"); got != "next" {
		t.Errorf("T-2 moved to next with the keyboard is in %q, want next", got)
	}

	p.open("/t/" + s.tenant + "/")
	p.waitFor("both moves after a reload", cardIn("T-1", "doing")+" && "+cardIn("T-2", "next"))
	p.checkPage("the board", "board")
	p.open("/t/" + s.tenant + "/tasks/T-1")
	if got := p.text("h1.task-title"); got == "" || p.count("ol#history > li") == 0 || p.count("ul#comments > li.comment") != 1 {
		t.Errorf("task page T-1: title %q, %d history entries, %d comments; want the title, its history, one comment",
			got, p.count("ol#history > li"), p.count("ul#comments > li.comment"))
	}
	p.checkPage("a task page", "task")
}

// furnish fills the board with the cards a team has on it (after T-1 and
// T-2), assigned to people and assistants, one flagged, for the
// screenshots and for axe to see every part of a card.
func furnish(t *testing.T, s *site, owner *mcp.ClientSession) {
	t.Helper()
	bot := s.assistant(t, "claude", nil)
	for _, task := range []map[string]any{
		{"title": "Fix the login redirect loop", "kind": "bug", "size": "xs", "lane": "next", "assignees": []string{"me"}, "labels": []string{"auth"}},
		{"title": "Draft the release notes", "kind": "chore", "size": "s", "lane": "doing", "assignees": []string{"claude"}},
		{"title": "Export the audit log as CSV", "kind": "feature", "size": "l", "lane": "backlog", "project": "compliance"},
		{"title": "Upgrade the database driver", "kind": "chore", "size": "m", "lane": "done", "assignees": []string{s.owner, "claude"}},
	} {
		nodetest.CallOK(t, owner, "tasks_create", task)
	}
	nodetest.CallOK(t, bot, "tasks_flag", map[string]any{"ref": "T-4", "flagged": true, "reason": "Waiting for the changelog of 2.3."})
}

// TestBrowserLiveBoard: a person's open board shows an assistant's move,
// made over MCP, without a reload: on the embedded default, and on a
// cluster where the assistant's requests reach other front doors than the
// person's browser, over PostgreSQL and a NATS server.
func TestBrowserLiveBoard(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*testing.T) *site
	}{
		{"embedded", func(t *testing.T) *site { s, _ := embeddedSite(t, nodetest.Setups()[0]); return s }},
		{"two-front-doors+" + nodetest.Setups()[1].Name, func(t *testing.T) *site { return clusterSite(t, nodetest.Setups()[1]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.start(t)
			bot := s.assistant(t, "bot", nil)
			nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "Watch me move"})
			p := signedIn(t, s)
			p.waitFor("the live stream to connect", `document.body.dataset.live === "connected"`)
			// A reload would lose this mark.
			if err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](`window.taskwireTestMark = 1`)); err != nil {
				t.Fatal(err)
			}
			// A keyboard user's place survives the refresh.
			laneSelect := jsString(`[data-ref="T-1"] select[name="lane"]`)
			if err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector(`+laneSelect+`).focus()`)); err != nil {
				t.Fatal(err)
			}
			nodetest.CallOK(t, bot, "tasks_move", map[string]any{"ref": "T-1", "lane": "doing"})
			p.waitFor("the assistant's move to show", cardIn("T-1", "doing"))
			p.waitFor("the focus to stay on T-1's lane control", `document.activeElement === document.querySelector(`+laneSelect+`)`)
			nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "A new card", "lane": "next"})
			p.waitFor("the assistant's new card to show", cardIn("T-2", "next"))
			if p.eval(`window.taskwireTestMark || 0`) != 1 {
				t.Error("the page reloaded to show the assistant's changes, want them shown in place")
			}
		})
	}
}

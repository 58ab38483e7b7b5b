package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestBrowserBoards: in a real Chromium, the owner creates a board from
// the boards list, sets its doing lane's WIP limit and standing rules and
// leaves a context note on its settings page, archives another board,
// and reads an assistant's
// refused call in the audit log; the three pages pass axe.
func TestBrowserBoards(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	owner, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, owner, "boards_create", map[string]any{"slug": "legacy", "name": "Legacy support"})
	bot := s.assistant(t, "bot", nil)
	nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "Draft the release notes"})
	if res, err := bot.CallTool(context.Background(), &mcp.CallToolParams{Name: "boards_create", Arguments: map[string]any{"slug": "bots", "name": "Bots"}}); err != nil || !res.IsError {
		t.Fatalf("an assistant's boards_create = %v %v, want refused", res, err)
	}
	p := signedIn(t, s)
	tenant := "/t/" + s.tenant

	p.open(tenant + "/boards")
	p.submit("form#create-board", map[string]string{"slug": "ops", "name": "Operations"}, "")
	if p.path() != tenant+"/b/ops/settings" {
		t.Fatalf("creating a board went to %s, want its settings", p.path())
	}
	p.submit("form#board-settings", map[string]string{"wip_doing": "2", "rules": "Link the runbook in every incident task."}, "")
	p.submit("form#add-note", map[string]string{"body": "On call this week: owner."}, "")
	if got := p.text("#note-list li.note .body"); got != "On call this week: owner." {
		t.Errorf("the settings page lists note %q, want the owner's", got)
	}
	p.checkPage("the board settings", "board-settings")
	p.open(tenant + "/b/legacy/settings")
	p.submit("form#archive", nil, "")
	if got := p.text("#board-state"); !strings.HasPrefix(got, "archived") {
		t.Errorf("after archiving, the settings say the board is %q, want archived", got)
	}
	p.open(tenant + "/boards")
	if p.count(`#board-list li[data-board="ops"]`) != 1 || p.count(`#board-list li[data-board="legacy"][data-archived] .badge.archived`) != 1 {
		t.Error("the boards list does not list ops, and legacy as archived")
	}
	p.checkPage("the boards list", "boards")
	p.open(tenant + "/b/ops/")
	if got := p.text(`section.lane[data-lane="doing"] .wip`); got != "0 / 2" {
		t.Errorf("the doing lane of ops shows %q, want 0 / 2", got)
	}

	poll.Until(t, pageWait, "the assistant's refused call in the audit log", func() bool {
		p.open(tenant + "/audit?member=bot")
		return p.count(`tr[data-member="bot"][data-outcome="refused"]`) == 1
	})
	if got := p.text(`tr[data-outcome="refused"] td.error`); !strings.Contains(got, "admin") {
		t.Errorf("the refused call's error reads %q, want the role it needed", got)
	}
	p.checkPage("the audit log", "audit")
}

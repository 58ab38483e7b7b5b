package tests

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
)

// ownerConsole starts s with the owner signed in to the console and an
// assistant "bot" the owner sponsors connected to the MCP endpoint.
func ownerConsole(t *testing.T, s nodetest.Setup) (*nodetest.Harness, *browser, *mcp.ClientSession) {
	t.Helper()
	h := nodetest.Start(t, s)
	b := newBrowser(t, h.Sys.Config().PublicURL)
	firstSignIn(t, b, signInLink(t, h, "default", "owner"))
	return h, b, consoleAssistant(t, h, "bot")
}

// consoleAssistant adds an assistant the owner sponsors to tenant default
// and connects it to the MCP endpoint.
func consoleAssistant(t *testing.T, h *nodetest.Harness, handle string) *mcp.ClientSession {
	t.Helper()
	bot, err := tenancy.AddMember(context.Background(), h.Sys.DB, "default", tenancy.MemberSpec{
		Handle: handle, Name: "Assistant " + handle, Kind: member.KindAssistant, SponsorHandle: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, "default", bot.ID, authz.AllScopes), nil)
	return cs
}

// TestConsoleBoardSettings: the owner creates a board in the console
// (once, though the form is sent twice; a new form for the same slug is
// refused with the typed name kept), renames it and sets a WIP limit that
// the board page then shows; a save from a page opened before that change
// is refused with the typed text kept; once she sets the board to take
// bugs only, an assistant's feature is refused and a bug taken; a context note she adds (sent
// twice, kept once) is what an assistant's context_get reads; once she
// archives the board, the assistant's tasks_create on it is refused and
// the boards list marks it archived.
func TestConsoleBoardSettings(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			_, b, bot := ownerConsole(t, s)

			boards := b.get("/t/default/boards")
			code, loc, body := b.submit(boards, `<form id="create-board"`, url.Values{"slug": {"ops"}, "name": {"Operations"}})
			if code != http.StatusSeeOther || loc != "/t/default/b/ops/settings" {
				t.Fatalf("creating board ops = %d to %q, want 303 to its settings:\n%s", code, loc, body)
			}
			if code, again, _ := b.submit(boards, `<form id="create-board"`, url.Values{"slug": {"ops"}, "name": {"Operations"}}); code != http.StatusSeeOther || again != loc {
				t.Errorf("sending the same form again = %d to %q, want the first answer, 303 to %s", code, again, loc)
			}
			if code, _, body := b.submit(b.get("/t/default/boards"), `<form id="create-board"`, url.Values{"slug": {"ops"}, "name": {"Second ops"}}); code != http.StatusConflict ||
				!strings.Contains(body, `value="Second ops"`) {
				t.Errorf("creating ops again = %d, want 409 with the typed name kept:\n%s", code, body)
			}

			settings := b.get(loc)
			every := []string{"task", "bug", "feature", "chore"}
			if code, loc, body := b.submit(settings, `<form id="board-settings"`, url.Values{"name": {"Ops & Infra"}, "wip_doing": {"2"}, "kinds": every}); code != http.StatusSeeOther || loc != "/t/default/b/ops/settings" {
				t.Fatalf("saving the settings = %d to %q, want 303 back:\n%s", code, loc, body)
			}
			page := b.get("/t/default/b/ops/")
			if !strings.Contains(page, "<h1>Ops &amp; Infra</h1>") || !strings.Contains(page, `data-count="0" data-limit="2"`) {
				t.Errorf("the board page does not show the new name and the doing lane's limit of 2:\n%s", page)
			}
			got := nodetest.CallOK(t, bot, "boards_get", map[string]any{"board": "ops"})
			if lanes := got["lanes"].([]any); lanes[2].(map[string]any)["wip_limit"] != float64(2) {
				t.Errorf("boards_get after the console's save = %v, want doing limited to 2", lanes)
			}

			code, _, body = b.submit(settings, `<form id="board-settings"`, url.Values{"name": {"Stale name"}, "rules": {"Typed rules"}, "kinds": every})
			if code != http.StatusConflict || !strings.Contains(body, "Someone changed this board") ||
				!strings.Contains(body, `value="Stale name"`) || !strings.Contains(body, "Typed rules</textarea>") {
				t.Errorf("a save from the stale page = %d, want 409 keeping the typed name and rules:\n%s", code, body)
			}
			if name := nodetest.CallOK(t, bot, "boards_get", map[string]any{"board": "ops"})["board"].(map[string]any)["name"]; name != "Ops & Infra" {
				t.Errorf("after the refused save the board is named %v, want Ops & Infra", name)
			}

			// Only bugs from now on: an assistant's feature is refused in
			// words that say what to do, a bug is taken.
			settings = b.get("/t/default/b/ops/settings")
			if code, _, body := b.submit(settings, `<form id="board-settings"`, url.Values{"name": {"Ops & Infra"}, "wip_doing": {"2"}, "kinds": {"bug"}}); code != http.StatusSeeOther {
				t.Fatalf("saving kinds bug only = %d, want 303:\n%s", code, body)
			}
			if page := b.get("/t/default/b/ops/settings"); !strings.Contains(page, `<dd id="kinds">bug</dd>`) || !strings.Contains(page, `value="bug" checked>`) || strings.Contains(page, `value="task" checked>`) {
				t.Errorf("the settings page does not show bug as the only kind:\n%s", page)
			}
			res, err := bot.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"board": "ops", "title": "Search", "kind": "feature"}})
			if want := "board ops takes only bug: use kind bug, or ask an owner or admin to add feature in the board's settings"; err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), want) {
				t.Errorf("tasks_create kind=feature on ops = %v %q, want refused with %q", err, nodetest.Text(res), want)
			}
			if bug := nodetest.CallOK(t, bot, "tasks_create", map[string]any{"board": "ops", "title": "Crash on save", "kind": "bug"}); bug["task"].(map[string]any)["kind"] != "bug" {
				t.Errorf("tasks_create kind=bug on ops = %v, want a bug", bug)
			}

			settings = b.get("/t/default/b/ops/settings")
			if code, loc, _ := b.submit(settings, `<form id="add-note"`, url.Values{"body": {"Deploys freeze on Fridays."}}); code != http.StatusSeeOther || loc != "/t/default/b/ops/settings#notes" {
				t.Fatalf("adding a note = %d to %q, want 303 to the notes", code, loc)
			}
			b.submit(settings, `<form id="add-note"`, url.Values{"body": {"Deploys freeze on Fridays."}}) // sent twice, kept once
			notes := nodetest.CallOK(t, bot, "context_get", map[string]any{"board": "ops"})["items"].([]any)
			if len(notes) != 1 || notes[0].(map[string]any)["body"] != "Deploys freeze on Fridays." || notes[0].(map[string]any)["author"] != "owner" {
				t.Errorf("context_get = %v, want the owner's note", notes)
			}

			settings = b.get("/t/default/b/ops/settings")
			if code, _, body := b.submit(settings, `<form id="archive"`, nil); code != http.StatusSeeOther {
				t.Fatalf("archiving = %d, want 303:\n%s", code, body)
			}
			res, err = bot.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_create", Arguments: map[string]any{"board": "ops", "title": "Late", "kind": "bug"}})
			if err != nil || !res.IsError {
				t.Errorf("tasks_create on the archived board = %v %q, want refused", err, nodetest.Text(res))
			}
			if list := b.get("/t/default/boards"); !strings.Contains(list, `<li data-board="ops" data-archived="true">`) {
				t.Errorf("the boards list does not mark ops archived:\n%s", list)
			}
		})
	}
}

// TestConsoleAudit: the owner filters the audit log by member and
// outcome and sees just the assistant's refused call; the CSV and JSON
// exports of the same filters parse and hold it; a viewer is refused the
// page in the service's words and is offered no link to it.
func TestConsoleAudit(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h, b, bot := ownerConsole(t, s)
			nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": "=HYPERLINK(\"http://evil\")"})
			if res, err := bot.CallTool(context.Background(), &mcp.CallToolParams{Name: "boards_create", Arguments: map[string]any{"slug": "x", "name": "X"}}); err != nil || !res.IsError {
				t.Fatalf("an assistant's boards_create = %v %v, want refused", res, err)
			}

			filter := "/t/default/audit?member=bot&outcome=refused"
			var page string
			poll.Until(t, 10*time.Second, "the assistant's refused call in the audit log", func() bool {
				page = b.get(filter)
				return strings.Contains(page, `<tr data-member="bot" data-outcome="refused">`)
			})
			if n := strings.Count(page, "<tr data-member="); n != 1 || !strings.Contains(page, "boards_create") {
				t.Errorf("the filtered audit log shows %d rows, want only bot's refused boards_create:\n%s", n, page)
			}
			if all := b.get("/t/default/audit?member=bot"); !strings.Contains(all, `<tr data-member="bot" data-outcome="ok">`) {
				t.Errorf("the audit log of bot does not show its tasks_create:\n%s", all)
			}

			code, header, body := b.download(filter + "&format=csv")
			if code != http.StatusOK || !strings.HasPrefix(header.Get("Content-Disposition"), "attachment; filename=") {
				t.Fatalf("CSV export = %d %v, want 200 as an attachment", code, header)
			}
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || len(rows) != 2 || rows[0][1] != "member" || rows[1][1] != "bot" || rows[1][5] != "boards_create" || rows[1][8] != "refused" {
				t.Errorf("CSV export = %q, %v; want a header and bot's refused boards_create", rows, err)
			}

			code, header, body = b.download("/t/default/audit?member=bot&format=json")
			var doc struct {
				Events    []map[string]any `json:"events"`
				Truncated bool             `json:"truncated"`
			}
			if code != http.StatusOK || header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &doc) != nil {
				t.Fatalf("JSON export = %d %v, want 200 JSON:\n%s", code, header, body)
			}
			outcomes := map[any]any{}
			for _, e := range doc.Events {
				if e["member"] != "bot" {
					t.Errorf("the JSON export of bot holds %v", e)
				}
				outcomes[e["tool"]] = e["outcome"]
			}
			if outcomes["boards_create"] != "refused" || outcomes["tasks_create"] != "ok" || doc.Truncated {
				t.Errorf("the JSON export of bot = %v, want its ok tasks_create and refused boards_create, not truncated", doc)
			}

			if _, err := tenancy.AddMember(context.Background(), h.Sys.DB, "default", tenancy.MemberSpec{Handle: "vera", Name: "Vera", Role: member.RoleViewer}); err != nil {
				t.Fatal(err)
			}
			viewer := newBrowser(t, h.Sys.Config().PublicURL)
			firstSignInAs(t, viewer, signInLink(t, h, "default", "vera"), "vera@example.com")
			if board := viewer.get("/t/default/"); strings.Contains(board, "/audit") || strings.Contains(board, "settings") {
				t.Error("a viewer's board page links the audit log or the board's settings")
			}
			if code, _, body := viewer.do("GET", "/t/default/audit?format=csv", nil); code != http.StatusForbidden || !strings.Contains(body, "Your role (viewer) does not allow this.") ||
				!strings.Contains(body, "only owners and admins may list the audit log") {
				t.Errorf("a viewer's audit export = %d, want 403 in the service's words:\n%s", code, body)
			}
		})
	}
}

// download GETs path as a link with the download attribute does, and
// returns the answer's status, headers and body.
func (b *browser) download(path string) (int, http.Header, string) {
	b.t.Helper()
	resp, data := b.exchange("GET", path, nil)
	return resp.StatusCode, resp.Header, string(data)
}

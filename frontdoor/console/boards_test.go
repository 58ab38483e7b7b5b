package console

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

const (
	owner  = taskwirev1.MemberRole_MEMBER_ROLE_OWNER
	viewer = taskwirev1.MemberRole_MEMBER_ROLE_VIEWER
)

func TestBoardsPageByRole(t *testing.T) {
	for role, want := range map[taskwirev1.MemberRole]bool{owner: true, viewer: false} {
		w := newAdminWorker(role)
		e := w.env(t)
		session, _ := e.signIn()
		boards := e.do("GET", "/t/acme/boards", nil, session).Body.String()
		board := e.do("GET", "/t/acme/", nil, session).Body.String()
		settings := e.do("GET", "/t/acme/b/main/settings", nil, session).Body.String()
		for page, links := range map[string][]string{
			boards:   {`<form id="create-board"`, `href="/t/acme/b/ops/settings"`, `href="/t/acme/audit"`},
			board:    {`<a class="settings-link" href="/t/acme/b/main/settings">`, `href="/t/acme/audit"`},
			settings: {`<form id="board-settings"`, `<form id="add-note"`, `<form id="archive"`},
		} {
			for _, l := range links {
				if strings.Contains(page, l) != want {
					t.Errorf("as %v, the page shows %s: %t, want %t", role, l, !want, want)
				}
			}
		}
		if !strings.Contains(boards, `<li data-board="ops">`) || !strings.Contains(boards, `href="/t/acme/boards">Boards</a>`) {
			t.Errorf("as %v, the boards page does not list ops or link itself:\n%s", role, boards)
		}
	}
}

var versionRE = regexp.MustCompile(`name="expected_version" value="([^"]+)"`)

func TestSettingsSave(t *testing.T) {
	w := newAdminWorker(owner)
	e := w.env(t)
	session, csrf := e.signIn()
	page := e.do("GET", "/t/acme/b/main/settings", nil, session).Body.String()
	for _, want := range []string{`<dd id="kinds">task, bug</dd>`, `value="bug" checked> bug`, `value="chore"> chore`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `Be kind.</textarea>`,
		`<input id="wip-doing" name="wip_doing" type="number" min="0" max="1000" inputmode="numeric" value="1">`, `<form id="archive"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the settings page has no %s:\n%s", want, page)
		}
	}
	if strings.Contains(page, hostileTitle) {
		t.Error("the settings page does not escape a context note")
	}
	version := versionRE.FindStringSubmatch(page)[1]
	save := func(name, wip, version string, kinds ...string) (int, string) {
		if kinds == nil {
			kinds = []string{"task", "bug"}
		}
		resp := e.do("POST", "/t/acme/b/main/settings", url.Values{"csrf": {csrf}, "expected_version": {version},
			"name": {name}, "rules": {"Typed rules"}, "wip_doing": {wip}, "kinds": kinds}, session)
		return resp.Code, resp.Body.String()
	}
	if version != "1" {
		t.Fatalf("the form holds version %q, want the board's version 1", version)
	}
	if code, body := save("Main", "three", version); code != http.StatusBadRequest ||
		!strings.Contains(body, "The WIP limit of Doing is not a whole number") || !strings.Contains(body, `value="three"`) {
		t.Errorf("saving a limit of three = %d, want 400 keeping it:\n%s", code, body)
	}
	if code, body := save("Main", "1", version, []string{}...); code != http.StatusBadRequest ||
		!strings.Contains(body, "No kind of task is ticked") || !strings.Contains(body, "Typed rules</textarea>") {
		t.Errorf("saving with no kind ticked = %d, want 400 keeping the rules:\n%s", code, body)
	}
	if code, body := save("", "2", version); code != http.StatusBadRequest || !strings.Contains(body, "name is empty") || !strings.Contains(body, "Typed rules</textarea>") {
		t.Errorf("saving an empty name = %d, want 400 with the service's sentence and the rules kept:\n%s", code, body)
	}
	if code, _ := save("Renamed", "1", version, "chore", "bug"); code != http.StatusSeeOther || w.name != "Renamed" ||
		!slices.Equal(w.kinds, []taskwirev1.TaskKind{taskwirev1.TaskKind_TASK_KIND_BUG, taskwirev1.TaskKind_TASK_KIND_CHORE}) {
		t.Errorf("saving = %d, name %q, kinds %v; want 303 and the board renamed, taking bug and chore", code, w.name, w.kinds)
	}
	code, body := save("Stale", "1", version, "feature")
	if code != http.StatusConflict || !strings.Contains(body, "Someone changed this board") || !strings.Contains(body, `value="Stale"`) ||
		!strings.Contains(body, `value="feature" checked> feature`) || !strings.Contains(body, `name="expected_version" value="2"`) ||
		!strings.Contains(body, `<dd id="kinds">bug, chore</dd>`) {
		t.Errorf("saving from the page before the rename = %d, want 409 showing the board at version 2 and keeping the typed name and kinds:\n%s", code, body)
	}
	if w.name != "Renamed" || w.version != 2 {
		t.Errorf("after the refused save the board is named %q at version %d, want Renamed at 2", w.name, w.version)
	}
}

func TestArchiveBoard(t *testing.T) {
	w := newAdminWorker(owner)
	e := w.env(t)
	session, csrf := e.signIn()
	resp := e.do("POST", "/t/acme/b/main/archive", url.Values{"csrf": {csrf}, "archived": {"true"}}, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/b/main/settings" || !w.archived {
		t.Fatalf("archiving = %d to %q (archived %t), want 303 to the settings", resp.Code, resp.Header().Get("Location"), w.archived)
	}
	page := e.do("GET", "/t/acme/b/main/settings", nil, session).Body.String()
	if !strings.Contains(page, `<input type="hidden" name="archived" value="false">`) || !strings.Contains(page, "Settings of Main board (archived)") {
		t.Errorf("the archived board's settings offer no way back:\n%s", page)
	}
}

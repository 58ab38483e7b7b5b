package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

func TestSignedOutGoesToSignIn(t *testing.T) {
	e := newEnv(t, nil)
	for path, want := range map[string]string{
		"/":                 "/signin",
		"/t/acme/tasks/T-1": "/signin?next=%2Ft%2Facme%2Ftasks%2FT-1",
		"/t/acme/decisions": "/signin?next=%2Ft%2Facme%2Fdecisions",
	} {
		resp := e.do("GET", path, nil, &http.Cookie{Name: "__Host-taskwire-session", Value: "gone.secret"})
		if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != want {
			t.Errorf("GET %s signed out = %d to %q, want 303 to %q", path, resp.Code, resp.Header().Get("Location"), want)
		}
		if c := cookieNamed(resp, "__Host-taskwire-session"); c == nil || c.MaxAge >= 0 {
			t.Errorf("GET %s with an ended session kept its cookie", path)
		}
	}
}

func TestHomeGoesToFirstTenant(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	resp := e.do("GET", "/", nil, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/" {
		t.Errorf("GET / = %d to %q, want 303 to /t/acme/", resp.Code, resp.Header().Get("Location"))
	}
}

func TestBoardPage(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	resp := e.do("GET", "/t/acme/", nil, session)
	page := resp.Body.String()
	if resp.Code != http.StatusOK {
		t.Fatalf("GET /t/acme/ = %d, want 200:\n%s", resp.Code, page)
	}
	for _, want := range []string{
		`<main id="board"`, `<nav id="boards"`, `href="/t/acme/b/ops/"`,
		`data-lane="backlog"`, `data-lane="next"`, `data-lane="doing"`, `data-lane="done"`,
		`Over its WIP limit of 1.`,
		`<article class="card" data-ref="T-1" data-version="1" draggable="true">`,
		`<a class="card-title" href="/t/acme/tasks/T-1">`,
		`<span class="kind">bug</span>`, `<span class="size">m</span>`, `<span class="flag" title="waiting">`,
		`<li class="assignee" data-kind="person"><span class="who">ada</span>`,
		`<li class="assignee" data-kind="assistant"><span class="who">bot</span>`,
		`<form class="move" method="post" action="/t/acme/tasks/T-1/move"`, `<select name="lane">`,
		`<form id="filters" method="get"`, `<option value="me"`, `name="q"`,
		`value="` + csrf + `"`, `Acme &amp; Co`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the board page lacks %s", want)
		}
	}
	if strings.Contains(page, hostileTitle) || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the board page does not escape the title %s", hostileTitle)
	}
	if strings.Contains(page, " style=") || strings.Contains(page, "<script>") {
		t.Error("the board page has inline style or script, which the CSP blocks")
	}
	md := e.worker.lastCaller()
	for k, want := range map[string]string{
		identity.MDTenant: "acme", identity.MDMember: "7", identity.MDToken: "sid1",
		identity.MDKind: identity.KindSession, identity.MDScopes: "read comment write",
	} {
		if got := md.Get(k); len(got) != 1 || got[0] != want {
			t.Errorf("caller metadata %s = %v, want %q", k, got, want)
		}
	}
}

func TestBoardFilters(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	page := e.do("GET", "/t/acme/?flagged=yes&assignee=me", nil, session).Body.String()
	if strings.Contains(page, `data-ref="T-1"`) || !strings.Contains(page, `data-ref="T-2"`) {
		t.Error("flagged=yes: the board shows T-1 (not flagged) or hides T-2 (flagged)")
	}
	if !strings.Contains(page, `<option value="me" selected>`) {
		t.Error("the assignee filter does not keep \"me\" selected")
	}
}

func TestNotAMember(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	resp := e.do("GET", "/t/other/", nil, session)
	if resp.Code != http.StatusNotFound || !strings.Contains(resp.Body.String(), "not a member of a tenant named other") {
		t.Errorf("GET /t/other/ = %d, want 404 saying so", resp.Code)
	}
}

func TestMoveCard(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	resp := e.do("POST", "/t/acme/tasks/T-1/move", url.Values{
		"csrf": {csrf}, "lane": {"doing"}, "version": {"1"}, "position": {"0"}, "back": {"/t/acme/?kind=bug"},
	}, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/?kind=bug" {
		t.Fatalf("POST move = %d to %q, want 303 back to the board; body:\n%s", resp.Code, resp.Header().Get("Location"), resp.Body)
	}
	if len(e.worker.moves) != 1 {
		t.Fatalf("the worker saw %d moves, want 1", len(e.worker.moves))
	}
	m := e.worker.moves[0]
	if m.GetRef() != "T-1" || m.GetLane() != taskwirev1.Lane_LANE_DOING || m.GetExpectedVersion() != 1 || m.Position == nil || m.GetPosition() != 0 {
		t.Errorf("MoveTask(%v), want T-1 to doing at 0, expected version 1", m)
	}
}

func TestMoveNeedsCSRF(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	other := newEnv(t, func(c *Config) { c.CSRFKeys = [][]byte{[]byte("another key, another deployment")} })
	_, foreign := other.signIn()
	for name, form := range map[string]url.Values{
		"no token":                 {"lane": {"doing"}},
		"a token of another key":   {"lane": {"doing"}, "csrf": {foreign}},
		"a token of other session": {"lane": {"doing"}, "csrf": {e.con.csrf.token(csrfSession, "sid9")}},
	} {
		resp := e.do("POST", "/t/acme/tasks/T-1/move", form, session)
		if resp.Code != http.StatusForbidden || !strings.Contains(resp.Body.String(), "nothing was changed") {
			t.Errorf("%s: POST move = %d, want 403 saying nothing changed", name, resp.Code)
		}
	}
	if len(e.worker.moves) != 0 {
		t.Errorf("the worker saw %d moves, want none", len(e.worker.moves))
	}
}

func TestMoveRefusedByRole(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	resp := e.do("POST", "/t/acme/tasks/T-2/move", url.Values{"csrf": {csrf}, "lane": {"done"}, "version": {"4"}}, session)
	if resp.Code != http.StatusForbidden || !strings.Contains(resp.Body.String(), "Your role (viewer) does not allow this. A viewer may not move tasks.") {
		t.Errorf("POST move refused = %d, want 403 naming the role; body:\n%s", resp.Code, resp.Body)
	}
	hx := httptestRequest("POST", "/t/acme/tasks/T-2/move", url.Values{"csrf": {csrf}, "lane": {"done"}})
	hx.Header.Set("HX-Request", "true")
	hx.AddCookie(session)
	w := httpRecorder()
	e.con.ServeHTTP(w, hx)
	if w.Code != http.StatusForbidden || !strings.HasPrefix(w.Body.String(), "Your role (viewer)") || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Errorf("htmx POST move refused = %d %q, want 403 with the message as text", w.Code, w.Body)
	}
}

// TestBoardHeader: the board's name is shown once, other boards are
// offered apart, and the filters fold away until one is set.
func TestBoardHeader(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	page := e.do("GET", "/t/acme/", nil, session).Body.String()
	if n := strings.Count(page, ">Main board<"); n != 1 {
		t.Errorf("the board page names the board %d times, want once", n)
	}
	if !strings.Contains(page, `<nav id="boards" aria-label="Other boards">`) || !strings.Contains(page, `<a href="/t/acme/b/ops/">Ops</a>`) {
		t.Error("the board page does not offer the other board, ops")
	}
	if !strings.Contains(page, `<details id="filter-panel">`) || !strings.Contains(page, `<summary>Filters</summary>`) {
		t.Error("without a filter set, the filter panel is not folded away")
	}
	page = e.do("GET", "/t/acme/?label=ui&q=login", nil, session).Body.String()
	for _, want := range []string{`<details id="filter-panel" open>`, `<summary>Filters (2 set)</summary>`, `<a class="clear-filters" href="/t/acme/b/main/">Clear</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("with two filters set, the board page lacks %s", want)
		}
	}
}

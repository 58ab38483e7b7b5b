package console

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/frontdoor"
)

// TestAppsViews: each view is a self-contained page of the console's own
// parts: its stylesheet, its card and lanes, and for the board its drag
// and drop, inlined, loading nothing from anywhere (its CSP allows no
// origin), with _meta.ui saying so; and no script of a view writes HTML
// (data goes in as text only).
func TestAppsViews(t *testing.T) {
	a, err := NewApps()
	if err != nil {
		t.Fatal(err)
	}
	css, _ := assetFS.ReadFile("assets/console.css")
	drag, _ := assetFS.ReadFile("assets/drag.js")
	for uri, want := range map[string][]string{
		BoardViewURI:    {`<article class="card"`, `<form class="move"`, `<section class="lane" data-lane="doing"`, string(drag), `id="filters"`},
		TaskViewURI:     {`<h1 class="task-title">`, `<ol id="history">`, `<ul id="comments">`, `<option value="done">Done</option>`},
		DecisionViewURI: {`<article class="card"`, `<h1 class="question">`, `id="undo"`},
	} {
		c, ok := a.ReadView(uri)
		if !ok || c.MIMEType != frontdoor.AppMIME || c.URI != uri {
			t.Fatalf("ReadView(%s) = %v %v, want the view as %s", uri, c, ok, frontdoor.AppMIME)
		}
		page := c.Text
		for _, w := range append(want, string(css)) {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %.60q", uri, w)
			}
		}
		if m := regexp.MustCompile(`<(script|link|img)[^>]+(src|href)=`).FindString(page); m != "" {
			t.Errorf("%s loads a file (%s): a view must be self-contained", uri, m)
		}
		script := page[strings.Index(page, "<script>"):]
		if m := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\.html\(`).FindString(script); m != "" {
			t.Errorf("%s writes HTML (%s): data must go in as text", uri, m)
		}
		var meta struct {
			UI struct {
				CSP struct{ ConnectDomains, ResourceDomains []string }
			}
		}
		if err := json.Unmarshal(c.Meta, &meta); err != nil || meta.UI.CSP.ConnectDomains == nil || len(meta.UI.CSP.ConnectDomains)+len(meta.UI.CSP.ResourceDomains) != 0 {
			t.Errorf("%s's _meta = %s, want a CSP of no domains", uri, c.Meta)
		}
	}
	for tool, want := range map[string]string{
		"boards_get": BoardViewURI, "tasks_get": TaskViewURI, "tasks_move": "",
		"tasks_delete": DecisionViewURI, "tasks_restore": DecisionViewURI, "work_approve": DecisionViewURI,
	} {
		if got := a.ViewOf(tool); got != want {
			t.Errorf("ViewOf(%s) = %q, want %q", tool, got, want)
		}
	}
	if len(a.Views()) != 3 {
		t.Errorf("Views() = %v, want the board, the task and the decision", a.Views())
	}
}

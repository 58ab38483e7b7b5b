package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTaskPage(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	if resp := e.do("POST", "/t/acme/tasks/T-1/comments", url.Values{"csrf": {csrf}, "body": {"<img src=x onerror=alert(1)> see javascript:alert(2)"}}, session); resp.Code != http.StatusSeeOther {
		t.Fatalf("POST comment = %d, want 303; body:\n%s", resp.Code, resp.Body)
	}
	resp := e.do("GET", "/t/acme/tasks/T-1", nil, session)
	page := resp.Body.String()
	for _, want := range []string{
		`<h1 class="task-title"><span class="ref">T-1</span> &lt;script&gt;alert(1)&lt;/script&gt;</h1>`,
		`<div class="task-note">Run javascript:alert(1) or read <a href="https://example.com/doc?a=1&amp;b=2" rel="noopener noreferrer nofollow ugc">https://example.com/doc?a=1&amp;b=2</a> now.</div>`,
		`<ul id="comments">`, `<li class="comment"`, `&lt;img src=x onerror=alert(1)&gt; see javascript:alert(2)`,
		`<ol id="history">`, `<span class="actor" data-kind="assistant">bot (assistant of ada)</span> created T-1 in backlog <time>`,
		`<form id="comment" method="post" action="/t/acme/tasks/T-1/comments">`, `<textarea id="comment-body" name="body"`,
		`<input type="hidden" name="version" value="1">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the task page lacks %s", want)
		}
	}
	for _, bad := range []string{`href="javascript:`, `<img src=x`, hostileTitle} {
		if strings.Contains(page, bad) {
			t.Errorf("the task page has %s unescaped", bad)
		}
	}
}

func TestEditConflict(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	resp := e.do("POST", "/t/acme/tasks/T-2", url.Values{"csrf": {csrf}, "version": {"3"}, "title": {"Ship it now"}, "note": {"my careful words"}}, session)
	page := resp.Body.String()
	if resp.Code != http.StatusConflict || !strings.Contains(page, "Someone changed this task since you opened it") {
		t.Fatalf("POST edit at an old version = %d, want 409 saying so:\n%s", resp.Code, page)
	}
	if !strings.Contains(page, `>my careful words</textarea>`) || !strings.Contains(page, `name="version" value="4"`) {
		t.Error("the conflict page lost the person's text or kept the old version")
	}
	resp = e.do("POST", "/t/acme/tasks/T-2", url.Values{"csrf": {csrf}, "version": {"4"}, "title": {"Ship it now"}, "note": {"my careful words"}}, session)
	if resp.Code != http.StatusSeeOther || e.worker.tasks["T-2"].GetTitle() != "Ship it now" {
		t.Errorf("POST edit at the current version = %d, title %q; want 303 and the new title", resp.Code, e.worker.tasks["T-2"].GetTitle())
	}
}

func TestUnknownTask(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	resp := e.do("GET", "/t/acme/tasks/T-404", nil, session)
	if resp.Code != http.StatusNotFound || !strings.Contains(resp.Body.String(), "There is no task T-404.") {
		t.Errorf("GET an unknown task = %d, want 404 with the worker's message", resp.Code)
	}
}

func TestSegments(t *testing.T) {
	for in, links := range map[string][]string{
		"see https://a.example/x.":                 {"https://a.example/x"},
		"javascript:alert(1)":                      nil,
		"data:text/html,<script>alert(1)</script>": nil,
		"http://a.example and ftp://b.example":     {"http://a.example"},
		"JAVASCRIPT:alert(1)//http://x":            nil,
		"https://user:pw@evil.example/":            nil,
	} {
		var got []string
		var text strings.Builder
		for _, s := range segments(in) {
			text.WriteString(s.Text)
			if s.Href != "" {
				got = append(got, s.Href)
			}
		}
		if strings.Join(got, " ") != strings.Join(links, " ") {
			t.Errorf("segments(%q) links = %v, want %v", in, got, links)
		}
		if text.String() != in {
			t.Errorf("segments(%q) text = %q, want it whole", in, text.String())
		}
	}
}

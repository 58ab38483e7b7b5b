package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestDecisionsInbox(t *testing.T) {
	e := newEnv(t, nil)
	session, _ := e.signIn()
	page := e.do("GET", "/t/acme/decisions", nil, session).Body.String()
	pending, declined := strings.Index(page, `data-decision="dec1"`), strings.Index(page, `data-decision="old"`)
	if pending < 0 || declined < 0 || pending > declined {
		t.Errorf("the inbox lists the pending decision at %d and the declined one at %d, want pending first:\n%s", pending, declined, page)
	}
	if !strings.Contains(page, `<ul id="decisions">`) || !strings.Contains(page, `href="/t/acme/decisions/dec1"`) {
		t.Error("the inbox lacks ul#decisions or the link to the decision")
	}
	for _, want := range []string{`<section id="work-to-approve">`, `href="/t/acme/tasks/T-2#approve-work"`, `claims ran out (3 of 3)`, `released because: Needs a person.`} {
		if !strings.Contains(page, want) {
			t.Errorf("the inbox's work waiting to be approved again lacks %s", want)
		}
	}
}

func TestDecide(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	page := e.do("GET", "/t/acme/decisions/dec1", nil, session).Body.String()
	for _, want := range []string{
		`Delete task T-2 &#34;Ship it&#34;?`, `Helper Bot (bot), assistant sponsored by ada`, `&#34;ref&#34;: &#34;T-2&#34;`,
		`<form id="decide"`, `name="reason"`, `<button type="submit" name="decision" value="approve">`,
		`<button type="submit" name="decision" value="decline">`, `<p id="decision-state" data-state="pending">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the decision page lacks %s", want)
		}
	}
	resp := e.do("POST", "/t/acme/decisions/dec1", url.Values{"csrf": {csrf}, "decision": {"decline"}, "reason": {"keep it"}}, session)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/decisions/dec1" {
		t.Fatalf("POST decide = %d to %q, want 303 back", resp.Code, resp.Header().Get("Location"))
	}
	page = e.do("GET", "/t/acme/decisions/dec1", nil, session).Body.String()
	if !strings.Contains(page, `data-state="declined">Declined by ada: keep it`) || strings.Contains(page, `<form id="decide"`) {
		t.Errorf("after declining, the page does not show the state or still offers the form:\n%s", page)
	}
	again := e.do("POST", "/t/acme/decisions/dec1", url.Values{"csrf": {csrf}, "decision": {"approve"}}, session)
	if again.Code != http.StatusConflict || !strings.Contains(again.Body.String(), "already made") {
		t.Errorf("deciding twice = %d, want 409 with the worker's message", again.Code)
	}
}

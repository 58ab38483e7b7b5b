package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/taskwire/taskwire/node/nodetest"
)

// signedIn is a person signed in as the owner of s with a one-time link,
// who has set her email and password as the console then asks, on the
// board.
func signedIn(t *testing.T, s *site) *person {
	t.Helper()
	p := newPerson(t, s)
	p.open(s.signInLink(t, s.owner))
	p.submit("form#signin-link", nil, "")
	p.submit("form#password", map[string]string{"email": browserEmail, "new_password": browserPassword}, "")
	if p.open("/"); p.path() != "/t/"+s.tenant+"/" {
		t.Fatalf("signed in with the link, / went to %s, want the board /t/%s/", p.path(), s.tenant)
	}
	return p
}

// TestBrowserSessionCookie: the session cookie, as the browser keeps it,
// is __Host- prefixed (the public URL is loopback, which browsers treat
// as secure), Secure, HttpOnly, SameSite=Lax, for the whole host and no
// other, and the page's scripts cannot read it.
func TestBrowserSessionCookie(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := signedIn(t, s)
	var session *network.Cookie
	for _, c := range p.cookies() {
		if strings.Contains(c.Name, "taskwire-session") {
			session = c
		}
	}
	if session == nil {
		t.Fatalf("cookies = %v, want the session cookie", p.cookies())
	}
	host := strings.TrimPrefix(s.base, "http://")
	host = host[:strings.LastIndex(host, ":")]
	if session.Name != "__Host-taskwire-session" || !session.HTTPOnly || !session.Secure || session.SameSite != network.CookieSameSiteLax ||
		session.Path != "/" || session.Domain != host {
		t.Errorf("session cookie = %s HttpOnly=%v Secure=%v SameSite=%q Path=%q Domain=%q, want __Host-taskwire-session HttpOnly Secure SameSite=Lax Path=/ Domain=%s (host only)",
			session.Name, session.HTTPOnly, session.Secure, session.SameSite, session.Path, session.Domain, host)
	}
	if seen, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || strings.Contains(seen, "taskwire-session") {
		t.Errorf("document.cookie = %q, %v; want the session cookie hidden from scripts", seen, err)
	}
}

// TestBrowserCrossOriginPost: a page of another origin (on the same host,
// so the browser sends the SameSite=Lax cookie along) that makes the
// signed-in person's browser post a move is refused, and the task stays
// where it was.
func TestBrowserCrossOriginPost(t *testing.T) {
	s, h := embeddedSite(t, nodetest.Setups()[0])
	owner, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, owner, "tasks_create", map[string]any{"title": "Stay put"})
	p := signedIn(t, s)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id="evil" method="post" action="%s/t/%s/tasks/T-1/move">`+
			`<input name="lane" value="done"><input name="version" value="1"><button type="submit">Win</button></form>`, s.base, s.tenant)
	}))
	defer evil.Close()
	resp, err := chromedp.RunResponse(p.ctx, chromedp.Navigate(evil.URL))
	if err != nil || resp.Status != 200 {
		t.Fatalf("opening the other origin's page: %v, %v", resp, err)
	}
	code := p.submit("form#evil", nil, "")
	if code != http.StatusForbidden {
		t.Errorf("cross-origin POST of a move answered %d, want 403", code)
	}
	task := nodetest.CallOK(t, owner, "tasks_get", map[string]any{"ref": "T-1"})["task"].(map[string]any)
	if task["lane"] != "backlog" {
		t.Errorf("after a cross-origin POST T-1 is in %v, want backlog", task["lane"])
	}
}

// hostileTitles are titles a member may give a task that would run
// script if the console did not escape them.
var hostileTitles = []string{
	`<img src=x onerror="document.body.dataset.pwned='img'">`,
	`<script>document.body.dataset.pwned='script'</script>`,
}

// TestBrowserHostileText: titles and comments written as HTML render as
// the text they are and run nothing, even with the page's CSP switched
// off in the browser, so that escaping alone is what is tested; and every
// console page carries the CSP.
func TestBrowserHostileText(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	bot := s.assistant(t, "bot", nil)
	for _, title := range hostileTitles {
		ref := nodetest.CallOK(t, bot, "tasks_create", map[string]any{"title": title})["task"].(map[string]any)["ref"]
		nodetest.CallOK(t, bot, "comments_add", map[string]any{"ref": ref, "body": title})
	}
	p := signedIn(t, s)
	if _, err := chromedp.Call(p.ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	resp, err := chromedp.Run(p.ctx, chromedp.NavigateResponse(s.base+"/t/"+s.tenant+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Headers["Content-Security-Policy"]; got != consoleCSP {
		t.Errorf("board's Content-Security-Policy = %q, want %q", got, consoleCSP)
	}
	for i, title := range hostileTitles {
		ref := fmt.Sprintf("T-%d", i+1)
		if got := p.text(`article.card[data-ref="` + ref + `"] a.card-title`); !strings.Contains(got, title) {
			t.Errorf("card %s shows %q, want the title %q as text", ref, got, title)
		}
	}
	noMarkup(t, p, "the board")
	for i, title := range hostileTitles {
		ref := fmt.Sprintf("T-%d", i+1)
		p.open("/t/" + s.tenant + "/tasks/" + ref)
		if got := p.text("h1.task-title"); !strings.Contains(got, title) {
			t.Errorf("task page %s title = %q, want %q as text", ref, got, title)
		}
		if got := p.text("ul#comments > li.comment"); !strings.Contains(got, title) {
			t.Errorf("task page %s comment = %q, want %q as text", ref, got, title)
		}
		noMarkup(t, p, "task page "+ref)
	}
}

// noMarkup fails t when the page p shows has an img or script element in
// its content, or a hostile title's script ran.
func noMarkup(t *testing.T, p *person, page string) {
	t.Helper()
	if n := p.count(`#content img, #content script`); n != 0 {
		t.Errorf("%s has %d img or script elements in its content, want none: a title became markup", page, n)
	}
	if pwned := p.eval(`document.body.dataset.pwned ? 1 : 0`); pwned != 0 {
		t.Errorf("a hostile title ran script on %s", page)
	}
}

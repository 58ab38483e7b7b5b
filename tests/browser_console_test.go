package tests

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taskwire/taskwire/internal/poll"
)

// pageWait bounds the wait for what a page shows a moment after an event
// (the console promises a second); generous for the race detector.
const pageWait = 10 * time.Second

// person is one person's browser on a deployment's console.
type person struct {
	t    *testing.T
	ctx  context.Context
	site *site
}

// newPerson starts a browser of its own for a person on s.
func newPerson(t *testing.T, s *site) *person {
	t.Helper()
	return &person{t: t, ctx: startChromium(t), site: s}
}

// open loads path of the console and returns the status it answered
// with, after any redirects.
func (p *person) open(path string) int64 {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageWait)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(p.site.base+path))
	if err != nil {
		p.t.Fatalf("opening %s: %v", path, err)
	}
	return resp.Status
}

// submit fills the fields of the form the CSS selector form names and
// presses its button (button, a CSS selector inside the form; "" for its
// submit button), then waits for the page the console answers with.
func (p *person) submit(form string, fields map[string]string, button string) int64 {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageWait)
	defer cancel()
	p.fill(ctx, form, fields)
	if button == "" {
		button = `button[type="submit"]`
	}
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(form+" "+button)))
	if err != nil {
		p.t.Fatalf("submitting %s: %v", form, err)
	}
	return resp.Status
}

// fill sets the fields of the form the CSS selector form names.
func (p *person) fill(ctx context.Context, form string, fields map[string]string) {
	p.t.Helper()
	for name, v := range fields {
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(form+` [name="`+name+`"]`), v)); err != nil {
			p.t.Fatalf("filling %s of %s: %v", name, form, err)
		}
	}
}

// path is the path (and query) of the page the browser shows.
func (p *person) path() string {
	p.t.Helper()
	loc, err := chromedp.Run(p.ctx, chromedp.Location())
	if err != nil {
		p.t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		p.t.Fatal(err)
	}
	return u.RequestURI()
}

// text is the visible text of the first element sel matches, waiting for
// it to be there.
func (p *person) text(sel string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageWait)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("text of %s on %s: %v", sel, p.path(), err)
	}
	return strings.TrimSpace(s)
}

// count is how many elements sel matches now.
func (p *person) count(sel string) int {
	p.t.Helper()
	return p.eval(`document.querySelectorAll(` + jsString(sel) + `).length`)
}

// eval evaluates a JavaScript expression of a number in the page.
func (p *person) eval(expr string) int {
	p.t.Helper()
	n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return n
}

// waitFor waits until the JavaScript condition holds in the page, for
// what a person would see a moment later. It asks the page's current
// document each time, so a navigation or a swap on the way does not
// confuse it.
func (p *person) waitFor(what, cond string) {
	p.t.Helper()
	poll.Until(p.t, pageWait, what+" on "+p.path(), func() bool {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](cond))
		return err == nil && ok
	})
}

// cookies are the browser's cookies for the console.
func (p *person) cookies() []*network.Cookie {
	p.t.Helper()
	res, err := chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{p.site.base + "/"}})
	if err != nil {
		p.t.Fatal(err)
	}
	return res.Cookies
}

// checkPage runs axe on the page shown, and saves its screenshot as
// shot when screenshots are asked for ("" for none).
func (p *person) checkPage(name, shot string) {
	p.t.Helper()
	checkAxe(p.t, p.ctx, name)
	if shot != "" {
		screenshot(p.t, p.ctx, shot)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "<", `\x3c`)
	return `"` + r.Replace(s) + `"`
}

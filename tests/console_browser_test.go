package tests

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// browser is what the console's system tests drive it with: an HTTP
// client that keeps cookies as a browser does (Secure ones included, on
// loopback, which browsers treat as secure), follows no redirect on its
// own, and fills in and submits the pages' forms.
type browser struct {
	t       *testing.T
	base    string // e.g. http://127.0.0.1:41234
	cookies map[string]string
	client  *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	return &browser{t: t, base: base, cookies: map[string]string{}, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// do sends one request and returns the answer's status, Location and
// body.
func (b *browser) do(method, path string, form url.Values) (code int, location, body string) {
	b.t.Helper()
	resp, data := b.exchange(method, path, form)
	return resp.StatusCode, resp.Header.Get("Location"), string(data)
}

// exchange sends one request with the browser's cookies, keeps the
// cookies the answer sets, and returns the answer with its body read.
func (b *browser) exchange(method, path string, form url.Values) (*http.Response, []byte) {
	b.t.Helper()
	var r io.Reader
	if form != nil {
		r = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, r)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.base)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return resp, data
}

// get GETs path and fails the test unless it answers 200.
func (b *browser) get(path string) string {
	b.t.Helper()
	code, _, body := b.do("GET", path, nil)
	if code != http.StatusOK {
		b.t.Fatalf("GET %s = %d, want 200:\n%s", path, code, body)
	}
	return body
}

var (
	formActionRE = regexp.MustCompile(`action="([^"]*)"`)
	hiddenRE     = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// submit finds the first form after marker on page (marker being e.g.
// `<form id="comment"` or `data-ref="T-1"`), fills its hidden fields and
// fields, and posts it, as pressing its button does.
func (b *browser) submit(page, marker string, fields url.Values) (code int, location, body string) {
	b.t.Helper()
	i := strings.Index(page, marker)
	if i < 0 {
		b.t.Fatalf("the page has no %s:\n%s", marker, page)
	}
	start := i + strings.Index(page[i:], "<form")
	end := start + strings.Index(page[start:], "</form>")
	if start < i || end < start {
		b.t.Fatalf("no form after %s", marker)
	}
	form := page[start:end]
	action := html.UnescapeString(formActionRE.FindStringSubmatch(form)[1])
	values := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(form, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	for k, v := range fields {
		values[k] = v
	}
	return b.do("POST", action, values)
}

// signedIn reports whether b holds a session cookie.
func (b *browser) signedIn() bool {
	for name := range b.cookies {
		if strings.HasSuffix(name, "taskwire-session") {
			return true
		}
	}
	return false
}

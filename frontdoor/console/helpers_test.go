package console

import (
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/taskwire/taskwire/internal/events"
)

// env is a console in front of a fake worker.
type env struct {
	t      *testing.T
	worker *fakeWorker
	con    *Console
	events *fakeEvents
}

func newEnv(t *testing.T, edit func(*Config)) *env {
	t.Helper()
	e := &env{t: t, worker: newFakeWorker(), events: &fakeEvents{subs: map[*func(events.Event)]string{}}}
	cfg := Config{
		Conn:      e.worker.start(t),
		PublicURL: "http://127.0.0.1:8080",
		CSRFKeys:  [][]byte{[]byte("0123456789abcdef0123456789abcdef")},
		Events:    e.events,
		Logger:    slog.New(slog.DiscardHandler),
	}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if e.con, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

// do makes a request; form, when set, is its urlencoded body.
func (e *env) do(method, path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	e.t.Helper()
	var r *http.Request
	if form != nil {
		r = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	r.RemoteAddr = "192.0.2.10:4000"
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	e.con.ServeHTTP(w, r)
	return w
}

// signIn signs in with the password and returns the session cookie and
// the CSRF token of the session's forms.
func (e *env) signIn() (*http.Cookie, string) {
	e.t.Helper()
	form := e.do("GET", "/signin", nil)
	pre := cookieNamed(form, "__Host-taskwire-presession")
	if pre == nil {
		e.t.Fatalf("GET /signin set no pre-session cookie; headers %v", form.Header())
	}
	resp := e.do("POST", "/signin", url.Values{
		"email": {"ada@example.com"}, "password": {goodPassword}, "csrf": {csrfOf(e.t, form.Body.String())},
	}, pre)
	if resp.Code != http.StatusSeeOther {
		e.t.Fatalf("POST /signin = %d, want 303; body %s", resp.Code, resp.Body)
	}
	session := cookieNamed(resp, "__Host-taskwire-session")
	if session == nil {
		e.t.Fatal("POST /signin set no session cookie")
	}
	account := e.do("GET", "/account", nil, session)
	return session, csrfOf(e.t, account.Body.String())
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfOf is the CSRF token of the first form of page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no CSRF field:\n%s", page)
	}
	return html.UnescapeString(m[1])
}

// cookieNamed is the cookie name that w sets, nil if none.
func cookieNamed(w *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range w.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// fakeEvents is an in-memory event bus.
type fakeEvents struct {
	mu   sync.Mutex
	subs map[*func(events.Event)]string
}

func (f *fakeEvents) Subscribe(tenant string, fn func(events.Event)) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[&fn] = tenant
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, &fn)
	}, nil
}

func (f *fakeEvents) publish(tenant string, ev events.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for fn, t := range f.subs {
		if t == tenant {
			(*fn)(ev)
		}
	}
}

func (f *fakeEvents) subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

func httpRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// httptestRequest is a form POST (or any method) from a test client.
func httptestRequest(method, path string, form url.Values) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

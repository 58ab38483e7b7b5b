package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/frontdoor"
)

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, nil)
	for _, path := range []string{"/signin", "/nowhere", "/t/acme/"} {
		h := e.do("GET", path, nil).Header()
		for k, want := range map[string]string{
			"Content-Security-Policy": CSP,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "same-origin",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, k, got, want)
			}
		}
	}
	for _, part := range []string{"script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(CSP, part) {
			t.Errorf("CSP lacks %q", part)
		}
	}
	if strings.Contains(CSP, "unsafe-") {
		t.Errorf("CSP = %q, allows something unsafe", CSP)
	}
}

func TestSessionCookieFlags(t *testing.T) {
	for _, tc := range []struct {
		publicURL, name string
		secure          bool
	}{
		{"https://tasks.example.com", "__Host-taskwire-session", true},
		{"http://localhost:8080", "__Host-taskwire-session", true},
		{"http://[::1]:8080", "__Host-taskwire-session", true},
		{"http://tasks.internal:8080", "taskwire-session", false},
	} {
		e := newEnv(t, func(c *Config) { c.PublicURL = tc.publicURL })
		w := httpRecorder()
		e.con.cookies.setSession(w, "sid.secret")
		var got *http.Cookie
		for _, c := range w.Result().Cookies() {
			if c.Value == "sid.secret" {
				got = c
			}
		}
		if got == nil {
			t.Fatalf("%s: no session cookie set", tc.publicURL)
		}
		if got.Name != tc.name || got.Secure != tc.secure || !got.HttpOnly || got.SameSite != http.SameSiteLaxMode || got.Path != "/" || got.Domain != "" {
			t.Errorf("%s: cookie = %s, want name %s, Secure %t, HttpOnly, SameSite=Lax, Path=/, no Domain", tc.publicURL, got, tc.name, tc.secure)
		}
	}
}

func TestSignInWithPassword(t *testing.T) {
	e := newEnv(t, nil)
	form := e.do("GET", "/signin?next=/t/acme/tasks/T-1", nil)
	page := form.Body.String()
	for _, want := range []string{`<form id="signin"`, `name="email"`, `name="password"`, `type="submit"`, `value="/t/acme/tasks/T-1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("GET /signin lacks %s", want)
		}
	}
	pre := cookieNamed(form, "__Host-taskwire-presession")
	resp := e.do("POST", "/signin", url.Values{"email": {"ada@example.com"}, "password": {goodPassword},
		"csrf": {csrfOf(t, page)}, "next": {"/t/acme/tasks/T-1"}}, pre)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/t/acme/tasks/T-1" {
		t.Errorf("POST /signin = %d to %q, want 303 to /t/acme/tasks/T-1", resp.Code, resp.Header().Get("Location"))
	}
	if c := cookieNamed(resp, "__Host-taskwire-session"); c == nil || c.Value != "sid1.secret" {
		t.Errorf("POST /signin set session cookie %v, want sid1.secret", c)
	}
}

func TestSignInRefusals(t *testing.T) {
	e := newEnv(t, nil)
	form := e.do("GET", "/signin", nil)
	pre, csrf := cookieNamed(form, "__Host-taskwire-presession"), csrfOf(t, form.Body.String())
	good := url.Values{"email": {"ada@example.com"}, "password": {goodPassword}, "csrf": {csrf}}
	for name, tc := range map[string]struct {
		form    url.Values
		cookies []*http.Cookie
		code    int
		says    string
	}{
		"no CSRF token":       {url.Values{"email": {"ada@example.com"}, "password": {goodPassword}}, []*http.Cookie{pre}, 403, "expired or came from another page"},
		"no pre-session":      {good, nil, 403, "expired or came from another page"},
		"another pre-session": {good, []*http.Cookie{{Name: pre.Name, Value: strings.Repeat("x", 26)}}, 403, "expired"},
		"wrong password":      {url.Values{"email": {"ada@example.com"}, "password": {"nope"}, "csrf": {csrf}}, []*http.Cookie{pre}, 401, "The email or the password is wrong."},
	} {
		resp := e.do("POST", "/signin", tc.form, tc.cookies...)
		if resp.Code != tc.code || !strings.Contains(resp.Body.String(), tc.says) {
			t.Errorf("%s: POST /signin = %d, want %d saying %q; body:\n%s", name, resp.Code, tc.code, tc.says, resp.Body)
		}
		if c := cookieNamed(resp, "__Host-taskwire-session"); c != nil {
			t.Errorf("%s: POST /signin set a session cookie", name)
		}
	}
}

func TestSignInFromAnotherSite(t *testing.T) {
	e := newEnv(t, nil)
	form := e.do("GET", "/signin", nil)
	r := httptestRequest("POST", "/signin", url.Values{"email": {"ada@example.com"}, "password": {goodPassword}, "csrf": {csrfOf(t, form.Body.String())}})
	r.AddCookie(cookieNamed(form, "__Host-taskwire-presession"))
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	w := httpRecorder()
	e.con.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "from another site") {
		t.Errorf("cross-site POST /signin = %d, want 403 saying so; body:\n%s", w.Code, w.Body)
	}
}

func TestSignInThrottle(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	th, err := frontdoor.NewAuthThrottle(frontdoor.AuthThrottleConfig{Failures: 2, Window: time.Minute, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.Throttle = th })
	form := e.do("GET", "/signin", nil)
	pre, csrf := cookieNamed(form, "__Host-taskwire-presession"), csrfOf(t, form.Body.String())
	bad := url.Values{"email": {"ada@example.com"}, "password": {"guess"}, "csrf": {csrf}}
	for i := range 2 {
		if resp := e.do("POST", "/signin", bad, pre); resp.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d: POST /signin = %d, want 401", i+1, resp.Code)
		}
	}
	good := url.Values{"email": {"ada@example.com"}, "password": {goodPassword}, "csrf": {csrf}}
	resp := e.do("POST", "/signin", good, pre)
	if resp.Code != http.StatusTooManyRequests || !strings.Contains(resp.Body.String(), "Try again in 30 seconds") || resp.Header().Get("Retry-After") != "30" {
		t.Errorf("third attempt: POST /signin = %d, Retry-After %q, want 429 saying when; body:\n%s", resp.Code, resp.Header().Get("Retry-After"), resp.Body)
	}
	now = now.Add(30 * time.Second)
	if resp := e.do("POST", "/signin", good, pre); resp.Code != http.StatusSeeOther {
		t.Errorf("after 30 s: POST /signin = %d, want 303", resp.Code)
	}
}

func TestSignInWithLink(t *testing.T) {
	e := newEnv(t, nil)
	e.worker.hasPass = false
	page := e.do("GET", "/signin/link?k="+fakeLink, nil)
	body := page.Body.String()
	if !strings.Contains(body, `<form id="signin-link"`) || !strings.Contains(body, `value="`+fakeLink+`"`) {
		t.Fatalf("GET /signin/link lacks form#signin-link with the secret:\n%s", body)
	}
	if len(e.worker.sessions) != 0 {
		t.Fatal("GET /signin/link used the link; only the POST may")
	}
	resp := e.do("POST", "/signin/link", url.Values{"k": {fakeLink}, "csrf": {csrfOf(t, body)}}, cookieNamed(page, "__Host-taskwire-presession"))
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/account" {
		t.Errorf("POST /signin/link = %d to %q, want 303 to /account (no password yet)", resp.Code, resp.Header().Get("Location"))
	}
	used := e.do("POST", "/signin/link", url.Values{"k": {"used"}, "csrf": {csrfOf(t, body)}}, cookieNamed(page, "__Host-taskwire-presession"))
	if used.Code != http.StatusUnauthorized || !strings.Contains(used.Body.String(), "used already") {
		t.Errorf("POST /signin/link with a used link = %d, want 401 saying so", used.Code)
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/t/acme/":             "/t/acme/",
		"//evil.example/":      "",
		"https://evil.example": "",
		`/\evil.example`:       "",
		"":                     "",
		"javascript:alert(1)":  "",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSignOutEverywhere(t *testing.T) {
	e := newEnv(t, nil)
	first, _ := e.signIn()
	second, csrf := e.signIn()
	resp := e.do("POST", "/signout", url.Values{"csrf": {csrf}, "everywhere": {"1"}}, second)
	if resp.Code != http.StatusSeeOther || resp.Header().Get("Location") != "/signin" {
		t.Fatalf("POST /signout = %d to %q, want 303 to /signin", resp.Code, resp.Header().Get("Location"))
	}
	if c := cookieNamed(resp, second.Name); c == nil || c.MaxAge >= 0 {
		t.Errorf("POST /signout left the cookie: %v", c)
	}
	if got := e.do("GET", "/t/acme/", nil, first); got.Code != http.StatusSeeOther || !strings.HasPrefix(got.Header().Get("Location"), "/signin") {
		t.Errorf("the other session after signing out everywhere: GET /t/acme/ = %d to %q, want 303 to /signin", got.Code, got.Header().Get("Location"))
	}
}

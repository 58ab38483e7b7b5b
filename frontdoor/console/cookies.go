package console

import (
	"crypto/rand"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// cookies names and flags the console's two cookies: the session and,
// before sign-in, the pre-session one that the sign-in forms' CSRF token
// is bound to (login CSRF: another site must not sign a browser in to
// the attacker's account).
//
// Over https, and on localhost, which browsers treat as secure, they are
// Secure and carry the __Host- prefix, so that no subdomain or plain-http
// page can set or shadow them; a plain-http deployment on another host
// cannot use Secure cookies, so they go without both.
type cookies struct {
	session, pre string
	secure       bool
}

func newCookies(publicURL string) cookies {
	secure := false
	if u, err := url.Parse(publicURL); err == nil {
		secure = u.Scheme == "https" || isLocalhost(u.Hostname())
	}
	c := cookies{session: "taskwire-session", pre: "taskwire-presession", secure: secure}
	if secure {
		c.session, c.pre = "__Host-"+c.session, "__Host-"+c.pre
	}
	return c
}

// isLocalhost reports whether host is one browsers treat as secure
// without TLS.
func isLocalhost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// cookie is a cookie of the console's: Path=/, HttpOnly, SameSite=Lax,
// no Domain; maxAge 0 keeps it for the browser session, -1 deletes it.
func (c cookies) cookie(name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: c.secure, SameSite: http.SameSiteLaxMode,
	}
}

// setSession sets the session cookie to value (SignInResponse.cookie).
// It lives as long as the browser keeps it: the worker ends the session
// when it is idle or old, whatever the cookie says.
func (c cookies) setSession(w http.ResponseWriter, value string) {
	http.SetCookie(w, c.cookie(c.session, value, 0))
	http.SetCookie(w, c.cookie(c.pre, "", -1))
}

// clearSession deletes the session cookie.
func (c cookies) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, c.cookie(c.session, "", -1))
}

// sessionOf returns the session cookie of r, "" when it has none.
func (c cookies) sessionOf(r *http.Request) string {
	if ck, err := r.Cookie(c.session); err == nil {
		return ck.Value
	}
	return ""
}

// preSession returns the pre-session value of r, setting a new one on w
// when r has none.
func (c cookies) preSession(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(c.pre); err == nil && len(ck.Value) >= 20 {
		return ck.Value
	}
	v := rand.Text()
	http.SetCookie(w, c.cookie(c.pre, v, 3600))
	return v
}

// sessionID is the public id part of a session cookie "<sid>.<secret>".
func sessionID(cookie string) string {
	sid, _, _ := strings.Cut(cookie, ".")
	return sid
}

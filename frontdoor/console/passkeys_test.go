package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestPasskeyStateBound: the ceremony state cookie only finishes the
// ceremony of the browser it was sealed for; another session's, a
// sign-in's, a made-up one or none is refused with a sentence saying to
// start again, and the cookie is deleted either way.
func TestPasskeyStateBound(t *testing.T) {
	e := newEnv(t, nil)
	session, csrf := e.signIn()
	for name, value := range map[string]string{
		"another session's": e.con.passkeys.Seal(sealRegister+"othersession", []byte(`{}`)),
		"a sign-in's":       e.con.passkeys.Seal(sealSignIn+sessionID(session.Value), []byte(`{}`)),
		"made up":           "k.bm90IHNlYWxlZA",
	} {
		state := &http.Cookie{Name: "__Host-taskwire-passkey", Value: value}
		w := e.do("POST", "/account/passkeys", url.Values{"csrf": {csrf}, "credential": {"{}"}}, session, state)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "expired or was already used") {
			t.Errorf("finishing with %s state = %d %q, want 400 saying to start again", name, w.Code, w.Body)
		}
		if c := cookieNamed(w, "__Host-taskwire-passkey"); c == nil || c.MaxAge >= 0 {
			t.Errorf("finishing with %s state left the state cookie in place", name)
		}
	}
	w := e.do("POST", "/signin/passkey", url.Values{"credential": {"{}"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "expired or was already used") {
		t.Errorf("a passkey sign-in with no ceremony = %d %q, want 400 saying to start again", w.Code, w.Body)
	}
}

// TestPasskeyNeedsScript: the forms are hidden until the script finds
// passkeys in the browser; posted without it, the add form says what is
// needed, and the sign-in page's options need its CSRF token.
func TestPasskeyNeedsScript(t *testing.T) {
	e := newEnv(t, func(cfg *Config) { cfg.PublicURL = "https://taskwire.example" })
	page := e.do("GET", "/signin", nil).Body.String()
	if !strings.Contains(page, `<form id="passkey-signin" class="passkey" method="post" action="/signin/passkey" data-passkey="get" data-options="/signin/passkey/options" hidden>`) {
		t.Errorf("the sign-in page has no hidden passkey form:\n%s", page)
	}
	if w := e.do("POST", "/signin/passkey/options", url.Values{"csrf": {"forged"}}); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "reload it") {
		t.Errorf("passkey options with a forged CSRF token = %d %q, want 403 saying to reload", w.Code, w.Body)
	}
	session, csrf := e.signIn()
	w := e.do("POST", "/account/passkeys", url.Values{"csrf": {csrf}, "name": {"Laptop"}}, session)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "needs JavaScript") || !strings.Contains(w.Body.String(), `<main id="account"`) {
		t.Errorf("the add form posted without the script = %d, want 400 on the account page saying JavaScript is needed:\n%s", w.Code, w.Body)
	}
}

// TestPasskeysNeedAHost: on a console reached by an IP address, which
// browsers refuse passkeys for, the pages offer none and say why.
func TestPasskeysNeedAHost(t *testing.T) {
	e := newEnv(t, nil) // http://127.0.0.1:8080
	if page := e.do("GET", "/signin", nil).Body.String(); strings.Contains(page, "passkey-signin") {
		t.Errorf("the sign-in page on an IP address offers passkeys:\n%s", page)
	}
	session, _ := e.signIn()
	page := e.do("GET", "/account", nil, session).Body.String()
	if strings.Contains(page, "passkey-add") || !strings.Contains(page, "passkeys need a host name") {
		t.Errorf("the account page on an IP address offers to add a passkey, or does not say why not:\n%s", page)
	}
}

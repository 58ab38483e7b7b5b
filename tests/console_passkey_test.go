package tests

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/passkeytest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

// startOnLocalhost starts a system on s whose public URL names localhost,
// not 127.0.0.1: passkeys belong to a host name, and browsers refuse an
// IP address as one.
func startOnLocalhost(t *testing.T, s nodetest.Setup) *nodetest.Harness {
	t.Helper()
	return nodetest.StartWith(t, s, func(cfg *node.SystemConfig) {
		cfg.PublicURL = strings.Replace(cfg.PublicURL, "://127.0.0.1:", "://localhost:", 1)
	})
}

var optionsRE = regexp.MustCompile(`data-options="([^"]+)"`)

// passkeyForm runs the ceremony of the passkey form after marker on page
// as console.js does: it posts the form's CSRF token to its options URL,
// lets a answer (create or get), and posts the answer with fields.
func passkeyForm(t *testing.T, b *browser, page, marker string, a *passkeytest.Authenticator, fields url.Values) (code int, body string) {
	t.Helper()
	form := page[strings.Index(page, marker):]
	form = form[:strings.Index(form, "</form>")]
	csrf := hiddenRE.FindStringSubmatch(form)[2]
	code, _, options := b.do("POST", optionsRE.FindStringSubmatch(form)[1], url.Values{"csrf": {csrf}})
	if code != http.StatusOK {
		t.Fatalf("the options of %s = %d, want 200: %s", marker, code, options)
	}
	var answer string
	var err error
	if strings.Contains(form, `data-passkey="create"`) {
		answer, err = a.Create(options)
	} else {
		answer, err = a.Get(options)
	}
	if err != nil {
		t.Fatal(err)
	}
	if fields == nil {
		fields = url.Values{}
	}
	fields.Set("credential", answer)
	code, _, body = b.submit(page, marker, fields)
	return code, body
}

// TestConsolePasskey: a person who came in by a link adds a passkey on
// the account page, signs out, and signs in with it without typing
// anything; the page lists it, with when it was last used. Its one
// answer cannot be replayed, and the only way in of an account with no
// password cannot be removed.
func TestConsolePasskey(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := startOnLocalhost(t, s)
			base := h.Sys.Config().PublicURL
			w, err := h.Sys.Welcome(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(w.SignInLink)
			b := newBrowser(t, base)
			page := b.get("/signin/link?k=" + url.QueryEscape(u.Query().Get("k")))
			if code, loc, body := b.submit(page, `<form id="signin-link"`, nil); code != http.StatusSeeOther || loc != "/account" {
				t.Fatalf("POST /signin/link = %d to %q, want 303 to /account:\n%s", code, loc, body)
			}
			a := passkeytest.New(base)
			code, body := passkeyForm(t, b, b.get("/account"), `<form id="passkey-add"`, a, url.Values{"name": {"Work laptop"}})
			if code != http.StatusOK || !strings.Contains(body, `"location":"/account?passkey=added"`) {
				t.Fatalf("adding a passkey = %d %s, want 200 sending the browser to /account?passkey=added", code, body)
			}
			account := b.get("/account?passkey=added")
			if !strings.Contains(account, "Your passkey is added") || !strings.Contains(account, "Work laptop") || !strings.Contains(account, "not used yet") {
				t.Errorf("the account page after adding a passkey does not say so and list it, unused:\n%s", account)
			}
			if code, loc, _ := b.submit(account, `<form id="signout"`, nil); code != http.StatusSeeOther || loc != "/signin" || b.signedIn() {
				t.Fatalf("signing out = %d to %q, want 303 to /signin and no session", code, loc)
			}

			signin := b.get("/signin")
			code, body = passkeyForm(t, b, signin, `<form id="passkey-signin"`, a, nil)
			if code != http.StatusOK || !strings.Contains(body, `"location":"/"`) || !b.signedIn() {
				t.Fatalf("signing in with the passkey = %d %s, want 200 sending the browser to / with a session", code, body)
			}
			if board := b.get("/t/default/"); !strings.Contains(board, `<main id="board"`) {
				t.Errorf("the board after a passkey sign-in has no main#board:\n%s", board)
			}
			account = b.get("/account")
			if !strings.Contains(account, "last used") {
				t.Errorf("the account page does not say when the passkey was last used:\n%s", account)
			}
			code, _, body = b.submit(account, `<li data-passkey=`, nil)
			if code != http.StatusConflict || !strings.Contains(body, "only passkey") || !strings.Contains(body, "Work laptop") {
				t.Errorf("removing the only way in = %d, want 409 saying it is the only passkey, still listed:\n%s", code, body)
			}

			replay := newBrowser(t, base)
			code, body = passkeyForm(t, replay, replay.get("/signin"), `<form id="passkey-signin"`, a, nil)
			if !replay.signedIn() {
				t.Fatalf("a second browser's passkey sign-in = %d %s, want a session", code, body)
			}
			delete(replay.cookies, "__Host-taskwire-session")
			code, _, body = replay.submit(replay.get("/signin"), `<form id="passkey-signin"`, url.Values{"credential": {"{}"}})
			if code != http.StatusBadRequest || !strings.Contains(body, "expired or was already used") || replay.signedIn() {
				t.Errorf("an answer with no ceremony begun = %d %s, want 400 saying the request expired or was used", code, body)
			}
		})
	}
}

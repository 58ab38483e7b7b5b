package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

const ownerPassword = "a long enough passphrase"

// signInLink makes a one-time sign-in link for the person handle of
// tenant, as an operator would (taskwire admin create-sign-in-link).
func signInLink(t *testing.T, h *nodetest.Harness, tenant, handle string) string {
	t.Helper()
	code, out := nodetest.NewAdminClient(t, h).Post(h.OperatorSecret(t), "CreateSignInLink", `{"tenant":"`+tenant+`","handle":"`+handle+`"}`)
	secret, _ := out["secret"].(string)
	if code != http.StatusOK || secret == "" {
		t.Fatalf("CreateSignInLink = %d %v, want a secret", code, out)
	}
	return secret
}

// firstSignIn signs the owner in with a link and sets their email and
// password, as a person does at the first start.
func firstSignIn(t *testing.T, b *browser, secret string) {
	t.Helper()
	firstSignInAs(t, b, secret, "owner@example.com")
}

// firstSignInAs is firstSignIn for the person of email.
func firstSignInAs(t *testing.T, b *browser, secret, email string) {
	t.Helper()
	page := b.get("/signin/link?k=" + url.QueryEscape(secret))
	if b.signedIn() {
		t.Fatal("GET /signin/link signed in: only posting its form may use the link")
	}
	if code, loc, body := b.submit(page, `<form id="signin-link"`, nil); code != http.StatusSeeOther || loc != "/account" {
		t.Fatalf("POST /signin/link = %d to %q, want 303 to /account:\n%s", code, loc, body)
	}
	account := b.get("/account")
	code, _, body := b.submit(account, `<form id="password"`, url.Values{"email": {email}, "new_password": {ownerPassword}})
	if code != http.StatusOK || !strings.Contains(body, "Your password is set") {
		t.Fatalf("POST /account = %d, want 200 saying the password is set:\n%s", code, body)
	}
}

// TestConsoleSignIn: the owner signs in with the first start's one-time
// link, sets a
// password, and from another browser signs in with it and reaches the
// board; the link works once; a wrong password is refused on the page;
// signing out everywhere ends both sessions.
func TestConsoleSignIn(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			base := h.Sys.Config().PublicURL
			// The link a first start prints (Welcome makes a new one each
			// time it is asked, as the first start did).
			w, err := h.Sys.Welcome(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(w.SignInLink)
			if err != nil || !strings.HasPrefix(w.SignInLink, base+"/signin/link?k=") {
				t.Fatalf("the first start's link is %q, want %s/signin/link?k=…", w.SignInLink, base)
			}
			secret := u.Query().Get("k")
			first := newBrowser(t, base)
			firstSignIn(t, first, secret)
			if _, ok := first.cookies["__Host-taskwire-session"]; !ok {
				t.Errorf("the session cookie is %v, want __Host-taskwire-session on a loopback URL", first.cookies)
			}

			again := newBrowser(t, base)
			page := again.get("/signin/link?k=" + url.QueryEscape(secret))
			if code, _, body := again.submit(page, `<form id="signin-link"`, nil); code != http.StatusUnauthorized || again.signedIn() {
				t.Errorf("the link used a second time = %d, want 401 and no session:\n%s", code, body)
			}

			second := newBrowser(t, base)
			form := second.get("/signin")
			if code, _, body := second.submit(form, `<form id="signin"`, url.Values{"email": {"owner@example.com"}, "password": {"not the password"}}); code != http.StatusUnauthorized || second.signedIn() {
				t.Errorf("a wrong password = %d, want 401 and no session:\n%s", code, body)
			}
			if code, loc, _ := second.submit(form, `<form id="signin"`, url.Values{"email": {"owner@example.com"}, "password": {ownerPassword}}); code != http.StatusSeeOther || loc != "/" {
				t.Fatalf("POST /signin = %d to %q, want 303 to /", code, loc)
			}
			if code, loc, _ := second.do("GET", "/", nil); code != http.StatusSeeOther || loc != "/t/default/" {
				t.Errorf("GET / signed in = %d to %q, want 303 to /t/default/", code, loc)
			}
			if board := second.get("/t/default/"); !strings.Contains(board, `<main id="board"`) {
				t.Errorf("the board page has no main#board:\n%s", board)
			}

			account := second.get("/account")
			if code, loc, _ := second.submit(account, `<form id="signout-everywhere"`, nil); code != http.StatusSeeOther || loc != "/signin" {
				t.Errorf("sign out everywhere = %d to %q, want 303 to /signin", code, loc)
			}
			if code, loc, _ := first.do("GET", "/t/default/", nil); code != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
				t.Errorf("the first browser after signing out everywhere: GET /t/default/ = %d to %q, want 303 to /signin", code, loc)
			}
		})
	}
}

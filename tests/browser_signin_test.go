package tests

import (
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node/nodetest"
)

// browserEmail and browserPassword are what the owner sets on the account
// page after the first sign-in.
const (
	browserEmail    = "ada@example.com"
	browserPassword = "correct horse battery staple"
)

// TestBrowserSignIn: the owner opens the one-time link the first start
// printed, which signs in only when she presses its button (a GET never
// uses it), sets an email and password on the account page, signs out,
// and signs in with the password to the board; a wrong password and the
// used link sign no one in. As the first start's owner she is a platform
// operator, and creates a tenant on the operator pages. axe finds nothing
// serious on the link, account, sign-in and operator pages.
func TestBrowserSignIn(t *testing.T) {
	s, _ := embeddedSite(t, nodetest.Setups()[0])
	p := newPerson(t, s)
	link := s.firstLink

	if code := p.open(link); code != 200 || p.count("form#signin-link") != 1 {
		t.Fatalf("GET %s = %d with %d form#signin-link, want 200 and the form", link, code, p.count("form#signin-link"))
	}
	p.checkPage("the sign-in link page", "")
	if p.open("/"); p.path() != "/signin" {
		t.Fatalf("/ after only opening the link went to %s, want /signin: the GET must not sign in", p.path())
	}
	p.open(link)
	p.submit("form#signin-link", nil, "")
	if p.path() != "/account" {
		t.Fatalf("signing in with the link went to %s, want /account to set a password", p.path())
	}
	p.checkPage("the account page before an email is set", "")
	p.submit("form#password", map[string]string{"email": browserEmail, "new_password": browserPassword}, "")
	if got := p.text("#flash"); !strings.Contains(got, "password is set") {
		t.Errorf("the account page after setting a password says %q, want that the password is set", got)
	}
	p.checkPage("the account page", "account")
	p.submit("form#signout", nil, "")

	if p.open("/"); p.path() != "/signin" {
		t.Fatalf("/ after signing out went to %s, want /signin", p.path())
	}
	p.checkPage("the sign-in page", "signin")
	p.submit("form#signin", map[string]string{"email": browserEmail, "password": "not the password"}, "")
	if p.open("/"); p.path() != "/signin" {
		t.Errorf("after a wrong password / went to %s, want /signin", p.path())
	}
	p.submit("form#signin", map[string]string{"email": browserEmail, "password": browserPassword}, "")
	board := "/t/" + s.tenant + "/"
	if p.path() != board || p.count("main#board section.lane") != 4 {
		t.Fatalf("signing in with the password went to %s with %d lanes, want %s with 4", p.path(), p.count("main#board section.lane"), board)
	}
	p.checkPage("the board", "")
	if got := p.text("header"); !strings.Contains(got, browserEmail) {
		t.Errorf("header = %q, want the signed-in account %s", got, browserEmail)
	}
	// The first start's owner is a platform operator.
	if p.open("/operator/tenants"); p.count("form#create-tenant") != 1 {
		t.Fatalf("the owner's /operator/tenants has no form#create-tenant")
	}
	p.submit("form#create-tenant", map[string]string{"slug": "initech", "name": "Initech", "owner": "peter", "owner_name": "Peter"}, "")
	if p.count("#owner-link") != 1 || p.count(`tr[data-tenant="initech"]`) != 1 {
		t.Errorf("creating initech shows %d owner links and %d rows for it, want 1 and 1", p.count("#owner-link"), p.count(`tr[data-tenant="initech"]`))
	}
	p.checkPage("the operator's tenants page", "operator-tenants")
	p.open("/operator/keys")
	p.checkPage("the operator's signing keys page", "operator-keys")

	other := newPerson(t, s)
	other.open(link)
	other.submit("form#signin-link", nil, "")
	if other.open("/"); other.path() != "/signin" {
		t.Errorf("a second use of the one-time link went on to %s, want /signin", other.path())
	}
}

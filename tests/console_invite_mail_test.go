package tests

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/mail/mailtest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

var emailedLinkRE = regexp.MustCompile(`http://\S+/signin/link\?k=\S+`)

// TestConsoleInvitationEmail: on a deployment with a mail server, the
// owner invites a person, who gets an email from the owner with a link
// that signs them in to the tenant's board; an address the mail server
// refuses still gets an invitation, whose link the owner is given to
// pass on, with the reason it was not emailed.
func TestConsoleInvitationEmail(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			smtp := mailtest.Start(t, mailtest.Options{Refuse: []string{"gone@example.com"}})
			sender, err := mail.New(smtp.Config("Taskwire <board@example.com>"))
			if err != nil {
				t.Fatal(err)
			}
			h := nodetest.StartWith(t, s, func(c *node.SystemConfig) { c.Mail = sender })
			base := h.Sys.Config().PublicURL
			admin := nodetest.NewAdminClient(t, h)
			owner := h.AdminToken(t, "owner")

			code, out := admin.Post(owner, "InvitePerson", `{"email":"nora@example.com","role":"MEMBER_ROLE_MEMBER"}`)
			if code != http.StatusOK || out["emailed"] != true {
				t.Fatalf("InvitePerson(nora) = %d %v, want emailed", code, out)
			}
			got := smtp.Messages()
			if len(got) != 1 || strings.Join(got[0].To, ",") != "nora@example.com" || !strings.HasPrefix(got[0].Subject, "You're invited to ") {
				t.Fatalf("the mail server received %+v, want one invitation to nora@example.com", got)
			}
			link := emailedLinkRE.FindString(got[0].Text)
			if !strings.HasPrefix(link, base+"/signin/link?k=") {
				t.Fatalf("the email's link is %q, want %s/signin/link?k=…:\n%s", link, base, got[0].Text)
			}
			nora := newBrowser(t, base)
			followInvitation(t, nora, strings.TrimPrefix(link, base))

			// The owner invites in the console: the page gives the link
			// to pass on, and says why it was not emailed.
			ob := newBrowser(t, base)
			firstSignIn(t, ob, signInLink(t, h, "default", "owner"))
			code, _, page := ob.submit(ob.get("/t/default/members"), `<form id="invite"`, url.Values{"email": {"gone@example.com"}, "role": {"member"}})
			if code != http.StatusOK || !strings.Contains(page, "was not emailed to gone@example.com (the mail server refused the address)") {
				t.Fatalf("inviting gone@example.com in the console = %d, want 200 saying the mail server refused the address:\n%s", code, page)
			}
			link = found(t, inviteLinkRE, page, "invitation link")
			followInvitation(t, newBrowser(t, base), strings.TrimPrefix(html.UnescapeString(link), base))
			if code, _, page = ob.submit(ob.get("/t/default/members"), `<form id="invite"`, url.Values{"email": {"pia@example.com"}, "role": {"member"}}); code != http.StatusOK || !strings.Contains(page, "The link was emailed to them.") {
				t.Fatalf("inviting pia@example.com in the console = %d, want 200 saying the link was emailed:\n%s", code, page)
			}
			if got := smtp.Messages(); len(got) != 2 || got[1].To[0] != "pia@example.com" {
				t.Errorf("the mail server holds %+v, want nora's and pia's invitations only", got)
			}
		})
	}
}

// followInvitation opens an invitation's link in b, confirms it, and
// checks that b reaches the tenant's board.
func followInvitation(t *testing.T, b *browser, path string) {
	t.Helper()
	page := b.get(path)
	if code, loc, body := b.submit(page, `<form id="signin-link"`, nil); code != http.StatusSeeOther || !b.signedIn() {
		t.Fatalf("confirming the invitation = %d to %q, want 303 and a session:\n%s", code, loc, body)
	}
	if board := b.get("/t/default/"); !strings.Contains(board, `<main id="board"`) {
		t.Errorf("the invited person's board page has no main#board:\n%s", board)
	}
}

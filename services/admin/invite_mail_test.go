package admin_test

import (
	"strings"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/mail/mailtest"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/sessions"
)

func TestInvitePersonEmails(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		smtp := mailtest.Start(t, mailtest.Options{Refuse: []string{"gone@example.com"}})
		sender, err := mail.New(smtp.Config("Taskwire <board@example.com>"))
		if err != nil {
			t.Fatal(err)
		}
		svc, err := admin.New(admin.Config{Client: client, Tokens: e.store, Issuer: e.issuer, Events: e.events,
			Mail: sender, PublicURL: "https://board.example.com", Logger: storetest.Logger()})
		if err != nil {
			t.Fatal(err)
		}

		resp, err := svc.InvitePerson(e.console(t, "acme/alice"), &adminv1.InvitePersonRequest{Tenant: "acme", Email: "nora@example.com"})
		if err != nil {
			t.Fatalf("InvitePerson(nora) = %v, want an invitation", err)
		}
		if !resp.GetEmailed() || resp.GetEmailError() != "" {
			t.Errorf("InvitePerson(nora) emailed %v (%q), want emailed", resp.GetEmailed(), resp.GetEmailError())
		}
		got := smtp.Messages()
		if len(got) != 1 {
			t.Fatalf("the mail server received %d messages, want nora's invitation", len(got))
		}
		link := sessions.LinkURL("https://board.example.com", resp.GetSecret())
		if m := got[0]; strings.Join(m.To, ",") != "nora@example.com" || m.Subject != "You're invited to Acme on Taskwire" ||
			!strings.Contains(m.Text, link) || !strings.Contains(m.Text, "Alice (alice) invited you") {
			t.Errorf("the invitation email = to %v, %q:\n%s\nwant to nora@example.com from Alice (alice) with the link %s", m.To, m.Subject, m.Text, link)
		}

		// A refused address loses no invitation: the link is returned,
		// with what happened.
		resp, err = svc.InvitePerson(e.console(t, "acme/alice"), &adminv1.InvitePersonRequest{Tenant: "acme", Email: "gone@example.com"})
		if err != nil {
			t.Fatalf("InvitePerson(gone) = %v, want an invitation that was not emailed", err)
		}
		if want := "The invitation was not emailed to gone@example.com (the mail server refused the address): send them the link yourself."; resp.GetEmailed() || resp.GetEmailError() != want {
			t.Errorf("InvitePerson(gone) emailed %v (%q), want not emailed (%q)", resp.GetEmailed(), resp.GetEmailError(), want)
		}
		if ms, _ := signInBy(t, client, resp.GetSecret()); strings.Join(ms, " ") != "acme/gone" {
			t.Errorf("signing in by the invitation that was not emailed = %v, want acme/gone", ms)
		}
	})
}

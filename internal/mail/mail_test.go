package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/mail/mailtest"
)

func invitation(t *testing.T, to string) mail.Message {
	t.Helper()
	m, err := mail.Invitation{To: to, Tenant: `<b>Acme & Co</b>`, Inviter: "Alice (alice)",
		Link: "https://board.example.com/signin/link?k=s3cret", Expires: time.Date(2026, 12, 11, 19, 40, 0, 0, time.UTC)}.Message()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSendInvitationOverSTARTTLS(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{STARTTLS: true, Username: "board", Password: "pw"})
	s, err := mail.New(srv.Config("Taskwire <board@example.com>"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), invitation(t, "nora@example.com")); err != nil {
		t.Fatalf("Send = %v, want the invitation accepted", err)
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("the server received %d messages, want 1", len(got))
	}
	m := got[0]
	if m.From != "board@example.com" || strings.Join(m.To, ",") != "nora@example.com" {
		t.Errorf("message from %q to %v, want from board@example.com to nora@example.com", m.From, m.To)
	}
	if want := "You're invited to <b>Acme & Co</b> on Taskwire"; m.Subject != want {
		t.Errorf("subject = %q, want %q", m.Subject, want)
	}
	for _, want := range []string{"Alice (alice) invited you to <b>Acme & Co</b>", "https://board.example.com/signin/link?k=s3cret", "until Fri 11 Dec 2026 19:40 UTC"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text body lacks %q:\n%s", want, m.Text)
		}
	}
	for _, want := range []string{"&lt;b&gt;Acme &amp; Co&lt;/b&gt;", `href="https://board.example.com/signin/link?k=s3cret"`} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("HTML body lacks %q:\n%s", want, m.HTML)
		}
	}
	if strings.Contains(m.HTML, "<b>Acme") {
		t.Errorf("HTML body has the tenant's name unescaped:\n%s", m.HTML)
	}
}

func TestSendFailures(t *testing.T) {
	plain := mailtest.Start(t, mailtest.Options{Refuse: []string{"gone@example.com"}})
	for _, c := range []struct {
		name   string
		cfg    mail.Config
		to     string
		reason string
	}{
		{"a refused recipient", plain.Config("board@example.com"), "gone@example.com", "the mail server refused the address"},
		{"no STARTTLS offered", func() mail.Config {
			c := plain.Config("board@example.com")
			c.TLS = mail.StartTLS
			return c
		}(), "nora@example.com", "the deployment's mail settings did not work"},
		{"nobody listening", mail.Config{Host: "127.0.0.1", Port: 1, From: "board@example.com", TLS: mail.NoTLS}, "nora@example.com", "the mail server could not be reached"},
	} {
		s, err := mail.New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Send(context.Background(), invitation(t, c.to))
		if err == nil {
			t.Errorf("Send with %s = nil, want an error", c.name)
			continue
		}
		if got := mail.Reason(err); got != c.reason {
			t.Errorf("Reason(Send with %s) = %q, want %q (err %v)", c.name, got, c.reason, err)
		}
	}
	if n := len(plain.Messages()); n != 0 {
		t.Errorf("the server received %d messages, want none", n)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  mail.Config
		want string
	}{
		{mail.Config{Host: "mail.example.com", From: "board@example.com", TLS: mail.NoTLS}, "in the clear"},
		{mail.Config{Host: "mail.example.com", From: "not an address"}, "not an email address"},
		{mail.Config{From: "board@example.com"}, "host"},
		{mail.Config{Host: "mail.example.com", From: "board@example.com", Password: "pw"}, "needs a user name"},
		{mail.Config{Host: "mail.example.com", From: "board@example.com", TLS: "ssl"}, "use starttls"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error saying %q", c.cfg, err, c.want)
		}
	}
	if err := (mail.Config{Host: "localhost", From: "board@example.com", TLS: mail.NoTLS}).Validate(); err != nil {
		t.Errorf("Validate(a loopback server without TLS) = %v, want nil", err)
	}
}

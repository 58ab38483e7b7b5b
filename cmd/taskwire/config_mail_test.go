package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/mail"
	"github.com/taskwire/taskwire/internal/mail/mailtest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
)

func TestSMTPFlags(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "smtp.password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  smtpConfig
		want string // part of the error; empty: a sender
	}{
		{"none", smtpConfig{}, ""},
		{"STARTTLS with a password file", smtpConfig{URL: "smtp://board@mail.example.com:587", From: "board@example.com", PasswordFile: pwFile}, ""},
		{"smtps", smtpConfig{URL: "smtps://board@mail.example.com", From: "board@example.com"}, ""},
		{"a loopback relay in the clear", smtpConfig{URL: "smtp://127.0.0.1:25", From: "board@example.com", TLS: "none"}, ""},
		{"from without a server", smtpConfig{From: "board@example.com"}, "need --smtp-url"},
		{"a password in the URL", smtpConfig{URL: "smtp://board:pw@mail.example.com", From: "board@example.com"}, "--smtp-password-file"},
		{"no sender", smtpConfig{URL: "smtp://mail.example.com"}, "--smtp-from"},
		{"another scheme", smtpConfig{URL: "https://mail.example.com", From: "board@example.com"}, "want smtp://"},
		{"smtps with STARTTLS", smtpConfig{URL: "smtps://mail.example.com", From: "board@example.com", TLS: "starttls"}, "leave --smtp-tls out"},
		{"a remote server in the clear", smtpConfig{URL: "smtp://mail.example.com", From: "board@example.com", TLS: "none"}, "this machine only"},
		{"a password without a user", smtpConfig{URL: "smtp://mail.example.com", From: "board@example.com", PasswordFile: pwFile}, "name the user"},
	} {
		s, err := c.cfg.sender()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: sender() = %v, want a sender", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: sender() = %v, want an error saying %q", c.name, err, c.want)
		case c.want == "" && (s == nil) != (c.cfg.URL == ""):
			t.Errorf("%s: sender() = %v, want a sender exactly when --smtp-url is set", c.name, s)
		}
	}
}

// TestAdminInviteSaysEmailed: `taskwire admin invite` on a deployment
// with a mail server says the link was emailed, or why not.
func TestAdminInviteSaysEmailed(t *testing.T) {
	smtp := mailtest.Start(t, mailtest.Options{Refuse: []string{"gone@example.com"}})
	sender, err := mail.New(smtp.Config("board@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	h := nodetest.StartWith(t, setups()[0], func(c *node.SystemConfig) { c.Mail = sender })
	a := newAdminClient(t, h)
	owner := h.AdminToken(t, "owner")
	for email, want := range map[string]string{
		"nora@example.com": "The link was emailed to nora@example.com.",
		"gone@example.com": "The invitation was not emailed to gone@example.com (the mail server refused the address): send them the link yourself.",
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"admin", "invite", "--email", email, "--url", a.Base, "--token", owner}, &out, &errOut)
		if err != nil || !strings.Contains(errOut.String(), want) || !strings.Contains(out.String(), "/signin/link?k=") {
			t.Errorf("taskwire admin invite --email %s = %v, printing %q and %q; want the link and %q", email, err, out.String(), errOut.String(), want)
		}
	}
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/taskwire/taskwire/internal/mail"
)

// smtpConfig is how the worker emails invitations: the mail server's
// URL, the sender, where the password is read from, and the TLS mode.
// The password itself is never a flag, so it stays out of process lists.
type smtpConfig struct {
	URL          string
	From         string
	PasswordFile string
	TLS          string
}

// mailFlags declares the SMTP flags, on the commands that run a worker
// (serve, worker): the worker sends the invitations.
func (c *config) mailFlags(fs *flag.FlagSet) {
	m := &c.SMTP
	fs.StringVar(&m.URL, "smtp-url", env("TASKWIRE_SMTP_URL", ""), "mail server that invitations are emailed through: smtp://user@host:587 (STARTTLS) or smtps://user@host:465 (TLS); the password comes from --smtp-password-file or TASKWIRE_SMTP_PASSWORD (env TASKWIRE_SMTP_URL; default: no email, the inviter passes the link on)")
	fs.StringVar(&m.From, "smtp-from", env("TASKWIRE_SMTP_FROM", ""), `address invitations come from, e.g. "Taskwire <board@example.com>" (env TASKWIRE_SMTP_FROM; required with --smtp-url)`)
	fs.StringVar(&m.PasswordFile, "smtp-password-file", env("TASKWIRE_SMTP_PASSWORD_FILE", ""), "file holding the password of --smtp-url's user; or set TASKWIRE_SMTP_PASSWORD to the password itself (env TASKWIRE_SMTP_PASSWORD_FILE)")
	fs.StringVar(&m.TLS, "smtp-tls", env("TASKWIRE_SMTP_TLS", ""), "starttls: a server without STARTTLS gets no mail; tls: TLS from the first byte; none: in the clear, to a mail server on this machine only (env TASKWIRE_SMTP_TLS; default: starttls for smtp://, tls for smtps://)")
}

// loadMail makes the sender of the SMTP flags; none without --smtp-url.
func (c *config) loadMail() (err error) {
	c.mail, err = c.SMTP.sender()
	return err
}

// sender is the mail.Sender of m, or nil when m names no server.
func (m smtpConfig) sender() (*mail.Sender, error) {
	if m.URL == "" {
		if m.From != "" || m.PasswordFile != "" || m.TLS != "" {
			return nil, errors.New("--smtp-from, --smtp-password-file and --smtp-tls need --smtp-url, the mail server to send through")
		}
		return nil, nil
	}
	cfg, err := m.parseURL()
	if err != nil {
		return nil, err
	}
	if cfg.Password, err = m.password(); err != nil {
		return nil, err
	}
	if cfg.Password != "" && cfg.Username == "" {
		return nil, fmt.Errorf("--smtp-url %s: name the user the password is for, e.g. smtp://board@%s", m.URL, cfg.Host)
	}
	return mail.New(cfg)
}

// parseURL reads host, port, user and TLS mode from --smtp-url and
// --smtp-tls.
func (m smtpConfig) parseURL() (mail.Config, error) {
	u, err := url.Parse(m.URL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") {
		return mail.Config{}, fmt.Errorf("--smtp-url %q: want smtp://user@host:587 or smtps://user@host:465", m.URL)
	}
	if _, ok := u.User.Password(); ok {
		return mail.Config{}, errors.New("--smtp-url holds a password: take it out, and put it in --smtp-password-file or TASKWIRE_SMTP_PASSWORD")
	}
	cfg := mail.Config{Host: u.Hostname(), Username: u.User.Username(), From: m.From, TLS: mail.TLS(m.TLS)}
	if p := u.Port(); p != "" {
		if cfg.Port, err = strconv.Atoi(p); err != nil {
			return mail.Config{}, fmt.Errorf("--smtp-url %q: the port is not a number", m.URL)
		}
	}
	switch {
	case u.Scheme == "smtps" && cfg.TLS == "":
		cfg.TLS = mail.ImplicitTLS
	case u.Scheme == "smtps" && cfg.TLS != mail.ImplicitTLS:
		return mail.Config{}, fmt.Errorf("--smtp-tls %s does not go with smtps://, which is TLS from the start: leave --smtp-tls out", m.TLS)
	}
	return cfg, nil
}

// password reads the SMTP password from its file or variable.
func (m smtpConfig) password() (string, error) {
	env, inEnv := os.LookupEnv("TASKWIRE_SMTP_PASSWORD")
	switch {
	case m.PasswordFile != "" && inEnv:
		return "", errors.New("give the SMTP password in --smtp-password-file or TASKWIRE_SMTP_PASSWORD, not both")
	case m.PasswordFile != "":
		raw, err := os.ReadFile(m.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("--smtp-password-file: %w", err)
		}
		return strings.TrimSpace(string(raw)), nil
	}
	return env, nil
}

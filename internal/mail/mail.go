// Package mail sends the deployment's email over SMTP: today the
// invitations of people to a tenant. A Sender holds settings only; each
// Send dials the server, so a mail server that is down costs the call that
// sends, never the start of the process.
package mail

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	netmail "net/mail"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/taskwire/taskwire/internal/loopback"
)

// TLS is how a Sender protects its connection to the mail server.
type TLS string

const (
	// StartTLS upgrades a plain connection (port 587) and refuses to send
	// when the server offers no STARTTLS: the default.
	StartTLS TLS = "starttls"
	// ImplicitTLS speaks TLS from the first byte (port 465, smtps).
	ImplicitTLS TLS = "tls"
	// NoTLS sends in the clear: only to a server on this machine, for
	// tests and a local relay.
	NoTLS TLS = "none"
)

// DefaultTimeout bounds one Send: connecting, signing in and handing over
// the message.
const DefaultTimeout = 15 * time.Second

// Config is how to reach the mail server and whom mail is from.
type Config struct {
	Host     string // required
	Port     int    // 0: 587, or 465 with ImplicitTLS
	Username string // empty: no SMTP AUTH
	Password string
	From     string // required, e.g. "Taskwire <board@example.com>"
	TLS      TLS    // empty: StartTLS
	// RootCAs verify the server's certificate; nil: the system's.
	RootCAs *x509.CertPool
	Timeout time.Duration // 0: DefaultTimeout
}

// Validate reports whether c is complete, in sentences naming the flag
// that sets each field.
func (c Config) Validate() error {
	switch {
	case c.Host == "":
		return errors.New("mail: name the SMTP server's host, e.g. --smtp-url smtp://user@mail.example.com:587")
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("mail: SMTP port %d: want 1 to 65535, e.g. 587", c.Port)
	case c.Password != "" && c.Username == "":
		return errors.New("mail: an SMTP password needs a user name: put it in the URL, e.g. smtp://user@mail.example.com:587")
	case c.Timeout < 0:
		return fmt.Errorf("mail: SMTP timeout %v: want a positive duration, e.g. 15s", c.Timeout)
	}
	if _, err := netmail.ParseAddress(c.From); err != nil {
		return fmt.Errorf("mail: --smtp-from %q is not an email address: give one such as \"Taskwire <board@example.com>\"", c.From)
	}
	switch c.TLS {
	case "", StartTLS, ImplicitTLS:
	case NoTLS:
		if !loopback.Host(c.Host) {
			return fmt.Errorf("mail: --smtp-tls=none sends mail and passwords in the clear, so it is for a server on this machine only, not %s: use starttls or tls", c.Host)
		}
	default:
		return fmt.Errorf("mail: --smtp-tls %q: use starttls (the default), tls or none", c.TLS)
	}
	return nil
}

// Sender sends email with the settings of its Config.
type Sender struct {
	cfg Config
}

// New returns a Sender for cfg; it connects to nothing yet.
func New(cfg Config) (*Sender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.TLS == "" {
		cfg.TLS = StartTLS
	}
	if cfg.Port == 0 {
		cfg.Port = 587
		if cfg.TLS == ImplicitTLS {
			cfg.Port = 465
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Sender{cfg: cfg}, nil
}

// Message is one email: a plain text body and the same in HTML.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Send hands m to the mail server, within the Sender's timeout.
func (s *Sender) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return err
	}
	if err := msg.To(m.To); err != nil {
		return err
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	client, err := gomail.NewClient(s.cfg.Host, s.options()...)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	return client.DialAndSendWithContext(ctx, msg)
}

// options are the go-mail client options of the Sender's settings.
func (s *Sender) options() []gomail.Option {
	c := s.cfg
	opts := []gomail.Option{gomail.WithPort(c.Port), gomail.WithTimeout(c.Timeout)}
	switch c.TLS {
	case ImplicitTLS:
		opts = append(opts, gomail.WithSSL())
	case NoTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if c.RootCAs != nil {
		opts = append(opts, gomail.WithTLSConfig(tlsConfig(c.Host, c.RootCAs)))
	}
	if c.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(c.Username), gomail.WithPassword(c.Password))
	}
	return opts
}

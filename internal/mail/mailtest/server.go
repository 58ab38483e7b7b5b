// Package mailtest runs an SMTP server in process for tests: it keeps the
// messages it accepts, can offer STARTTLS and require a password, and
// refuses the recipients it is told to.
package mailtest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http/httptest"
	netmail "net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/taskwire/taskwire/internal/mail"
)

// Options shape a Server.
type Options struct {
	STARTTLS bool     // offer STARTTLS with a certificate for 127.0.0.1
	Username string   // require AUTH PLAIN with this user and Password
	Password string   //
	Refuse   []string // recipients whose RCPT TO is refused with 550
}

// Server is an SMTP server on 127.0.0.1 that keeps what it accepts.
type Server struct {
	Host  string
	Port  int
	roots *x509.CertPool
	opts  Options

	mu       sync.Mutex
	received []Message
}

// Message is one message the server accepted.
type Message struct {
	From    string
	To      []string
	Subject string
	Text    string // the text/plain part, decoded
	HTML    string // the text/html part, decoded
}

// Start serves until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{Host: "127.0.0.1", opts: opts}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{srv: s}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = !opts.STARTTLS
	if opts.STARTTLS {
		cfg, roots := testCertificate()
		srv.TLSConfig, s.roots = cfg, roots
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// testCertificate is a TLS certificate for 127.0.0.1 and the pool that
// trusts it: httptest's, which is made for the loopback addresses.
func testCertificate() (*tls.Config, *x509.CertPool) {
	h := httptest.NewTLSServer(nil)
	defer h.Close()
	roots := x509.NewCertPool()
	roots.AddCert(h.Certificate())
	return &tls.Config{Certificates: h.TLS.Certificates, MinVersion: tls.VersionTLS12}, roots
}

// Config is a mail.Config that reaches s, sending from from.
func (s *Server) Config(from string) mail.Config {
	c := mail.Config{Host: s.Host, Port: s.Port, From: from, TLS: mail.NoTLS,
		Username: s.opts.Username, Password: s.opts.Password}
	if s.opts.STARTTLS {
		c.TLS, c.RootCAs = mail.StartTLS, s.roots
	}
	return c
}

// URL is the server as --smtp-url takes it.
func (s *Server) URL() string {
	return "smtp://" + net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
}

// Messages are the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.received...)
}

// session is one SMTP conversation.
type session struct {
	srv    *Server
	authed bool
	msg    Message
}

func (x *session) AuthMechanisms() []string {
	if x.srv.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.srv.opts.Username || pass != x.srv.opts.Password {
			return errors.New("mailtest: wrong user or password")
		}
		x.authed = true
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.srv.opts.Username != "" && !x.authed {
		return smtp.ErrAuthRequired
	}
	x.msg = Message{From: from}
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	for _, r := range x.srv.opts.Refuse {
		if strings.EqualFold(r, to) {
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user here"}
		}
	}
	x.msg.To = append(x.msg.To, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := x.msg.parse(raw); err != nil {
		return &smtp.SMTPError{Code: 554, Message: "mailtest: " + err.Error()}
	}
	x.srv.mu.Lock()
	x.srv.received = append(x.srv.received, x.msg)
	x.srv.mu.Unlock()
	return nil
}

func (x *session) Reset()        { x.msg = Message{} }
func (x *session) Logout() error { return nil }

// parse fills m's subject and bodies from the raw message.
func (m *Message) parse(raw []byte) error {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return err
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	parts := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return err
		}
		switch t, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); t {
		case "text/plain":
			m.Text = string(body)
		case "text/html":
			m.HTML = string(body)
		}
	}
}

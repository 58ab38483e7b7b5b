package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"

	gomail "github.com/wneessen/go-mail"
)

// tlsConfig verifies the server named host against roots.
func tlsConfig(host string, roots *x509.CertPool) *tls.Config {
	return &tls.Config{ServerName: host, RootCAs: roots, MinVersion: tls.VersionTLS12}
}

// Reason says in a few words why err stopped a Send, for the person who
// asked to send, who cannot see the deployment's logs: "the mail server
// refused the address".
func Reason(err error) string {
	var send *gomail.SendError
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the mail server did not answer in time"
	case errors.As(err, &send) && send.Reason == gomail.ErrSMTPRcptTo:
		return "the mail server refused the address"
	case errors.As(err, &send) && send.Reason == gomail.ErrSMTPMailFrom:
		return "the mail server refused the deployment's sender address"
	case errors.As(err, &send):
		return "the mail server refused the message"
	case errors.As(err, &netErr):
		return "the mail server could not be reached"
	}
	return "the deployment's mail settings did not work"
}

// Package loopback tells whether a host is this machine, for the settings
// that are safe only there: a conformance fixture open without tokens, a
// mail server spoken to in the clear.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a name or address, bracketed or not) names
// this machine: localhost, or a loopback address.
func Host(host string) bool {
	host = strings.Trim(strings.ToLower(host), "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

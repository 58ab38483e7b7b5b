package frontdoor

import (
	"net"
	"net/http"
	"net/url"

	"github.com/taskwire/taskwire/internal/loopback"
)

// An endpoint on a loopback address (a laptop, a test) is what DNS
// rebinding attacks: a page on evil.example resolves its own name to
// 127.0.0.1 and drives the local server from the browser. Such an endpoint
// therefore checks the Host header too, and takes any of the loopback
// names for itself, since "localhost", "127.0.0.1" and "[::1]" are one
// host to the user.

// loopbackNames are the host names that mean this machine.
var loopbackNames = []string{"localhost", "127.0.0.1", "[::1]"}

// isLoopbackHost reports whether host (a URL's host, with or without a
// port) names this machine.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return loopback.Host(host)
}

// loopbackOrigins returns the origins a loopback endpoint answers to: its
// scheme and port under each loopback name.
func loopbackOrigins(endpoint *url.URL) []string {
	port := endpoint.Port()
	var out []string
	for _, name := range loopbackNames {
		host := name
		if port != "" {
			host += ":" + port
		}
		if o, err := normalizeOrigin(endpoint.Scheme + "://" + host); err == nil {
			out = append(out, o)
		}
	}
	return out
}

// checkHost refuses, on a loopback endpoint, a request whose Host header
// names another machine: it came through a name that was rebound to ours.
func (h *Handler) checkHost(r *http.Request) *failure {
	if !h.loopback || isLoopbackHost(r.Host) {
		return nil
	}
	return refusal(http.StatusForbidden, "forbidden: this server answers on localhost only, and the request's Host names another", nil)
}

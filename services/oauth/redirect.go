package oauth

import (
	"fmt"
	"net/url"
	"strings"
)

// The application types of OpenID Connect Dynamic Registration, which
// RFC 7591 clients send as application_type.
const (
	appWeb    = "web"
	appNative = "native"
)

// checkRedirectURI refuses a redirect URI a client of appType may not
// register: not absolute, with a fragment (RFC 6749 §3.1.2), over plain
// http but to this machine, or a custom scheme for a web client. A
// loopback http redirect is allowed to web clients too: Claude.ai,
// Cursor, VS Code and Gemini CLI register theirs without
// application_type, and a redirect to the person's own machine sends the
// code nowhere else.
func checkRedirectURI(raw, appType string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "" || raw == "":
		return fmt.Errorf("redirect URI %q is not an absolute URI: send each in full, e.g. https://example.com/callback", printable(raw))
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("redirect URI %q has a fragment, which OAuth forbids: leave the #… out", printable(raw))
	case u.User != nil:
		return fmt.Errorf("redirect URI %q carries a user name or password: leave them out", printable(raw))
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "https":
		if u.Host == "" {
			return fmt.Errorf("redirect URI %q names no host", printable(raw))
		}
	case scheme == "http":
		if !loopbackHost(u.Hostname()) {
			return fmt.Errorf("redirect URI %q is plain http to another machine: use https, or http://127.0.0.1 for a program on the person's machine", printable(raw))
		}
	case forbiddenSchemes[scheme]:
		return fmt.Errorf("redirect URI %q has the scheme %s, which cannot receive a code: use https, loopback http or your app's own scheme", printable(raw), scheme)
	case appType == appWeb:
		return fmt.Errorf("redirect URI %q has a custom scheme, which only native applications may use: register with application_type native, or use https", printable(raw))
	}
	return nil
}

// forbiddenSchemes run or show something in the browser instead of
// handing the code to an application.
var forbiddenSchemes = map[string]bool{"javascript": true, "data": true, "file": true, "about": true, "blob": true, "vbscript": true}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	return host == "127.0.0.1" || host == "::1" || strings.EqualFold(host, "localhost")
}

// redirectMatches reports whether got is the registered redirect URI
// reg: the same string, but for the port of a loopback http redirect,
// which a native client picks when it starts listening (RFC 8252 §7.3).
func redirectMatches(reg, got string) bool {
	if reg == got {
		return true
	}
	r, err1 := url.Parse(reg)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || r.Scheme != "http" || g.Scheme != "http" || !loopbackHost(r.Hostname()) {
		return false
	}
	return r.Hostname() == g.Hostname() && r.Path == g.Path && r.RawQuery == g.RawQuery &&
		g.User == nil && g.Fragment == "" && !strings.Contains(got, "#")
}

// matchRedirect returns the redirect URI of c the request asks for: the
// one named, when registered, or c's only one when none is named.
func matchRedirect(c *oauthClient, got string) (string, error) {
	if got == "" {
		if len(c.redirectURIs) == 1 {
			return c.redirectURIs[0], nil
		}
		return "", refuse(errInvalidRequest, "The request names no redirect_uri and %s registered several: name one.", c.name)
	}
	for _, reg := range c.redirectURIs {
		if redirectMatches(reg, got) {
			return got, nil
		}
	}
	return "", refuse(errInvalidRequest, "The redirect_uri %q is not one %s registered, so the authorization cannot be sent there: use a registered one.", printable(got), c.name)
}

// localOnly reports whether every redirect URI of c is on the person's
// machine: loopback or a custom scheme, which any program there could
// claim.
func localOnly(uris []string) bool {
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		if u.Scheme == "https" || (u.Scheme == "http" && !loopbackHost(u.Hostname())) {
			return false
		}
	}
	return len(uris) > 0
}

// redirectHost is the host a redirect URI sends the code to, or its
// scheme for a custom one.
func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Hostname()
}

// httpsOnly is raw when it is an https URL, else "": a logo or home page
// the consent page links to must not be plain http or a script.
func httpsOnly(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return ""
	}
	return raw
}

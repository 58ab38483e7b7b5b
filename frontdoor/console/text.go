package console

import (
	"net/url"
	"regexp"
	"strings"
)

// segment is a piece of text members wrote: plain text, or a link when
// Href is set. Templates render both escaped; Href is only ever an
// absolute http(s) URL.
type segment struct {
	Text string
	Href string
}

// urlRE finds what looks like a URL with a scheme in text.
var urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"']+`)

// segments splits text into plain text and links. Only http and https
// URLs become links: "javascript:alert(1)" or "data:…" stay text, so a
// member cannot plant a link that runs code in another's browser.
func segments(text string) []segment {
	var out []segment
	last := 0
	for _, m := range urlRE.FindAllStringIndex(text, -1) {
		raw := strings.TrimRight(text[m[0]:m[1]], ".,;:!?)")
		href, ok := webURL(raw)
		if !ok {
			continue
		}
		if m[0] > last {
			out = append(out, segment{Text: text[last:m[0]]})
		}
		out = append(out, segment{Text: raw, Href: href})
		last = m[0] + len(raw)
	}
	if last < len(text) {
		out = append(out, segment{Text: text[last:]})
	}
	return out
}

// webURL returns raw as a URL fit for a link: absolute, http or https,
// with a host.
func webURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", false
	}
	return u.String(), true
}

package oauth

import (
	"strings"
	"testing"
)

// FuzzParseDocument: whatever a client's host serves, parsing neither
// panics nor accepts a document that is not the client's, names no
// redirect URI, or carries a secret.
func FuzzParseDocument(f *testing.F) {
	const id = "https://client.example/client.json"
	f.Add(`{"client_id": "https://client.example/client.json", "redirect_uris": ["http://127.0.0.1/cb"]}`)
	f.Add(`{"client_id": "https://client.example/client.json", "redirect_uris": ["https://x.example/cb"], "client_secret": "s"}`)
	f.Add(`{"client_id": "https://evil.example/client.json", "redirect_uris": ["https://x.example/cb"]}`)
	f.Add(`{"client_id": "https://client.example/client.json", "redirect_uris": ["cursor://x/cb"], "application_type": "web"}`)
	f.Fuzz(func(t *testing.T, body string) {
		md, err := parseDocument(id, []byte(body))
		if err != nil {
			return
		}
		if md.ClientID != id || len(md.RedirectURIs) == 0 || strings.Contains(body, `"client_secret`) || md.TokenEndpointAuthMethod != authNone {
			t.Errorf("parseDocument(%q) accepted %+v", body, md)
		}
		for _, u := range md.RedirectURIs {
			if err := checkRedirectURI(u, md.ApplicationType); err != nil {
				t.Errorf("parseDocument(%q) accepted redirect %q: %v", body, u, err)
			}
		}
	})
}

// FuzzRedirectMatches: a redirect URI that is not on loopback matches
// only itself, byte for byte; a loopback one only on another port.
func FuzzRedirectMatches(f *testing.F) {
	f.Add("https://client.example/cb")
	f.Add("https://client.example/cb/")
	f.Add("https://client.example.evil.example/cb")
	f.Add("http://127.0.0.1:8080/cb")
	f.Add("http://127.0.0.1:8080/cb#frag")
	f.Add("http://user@127.0.0.1:8080/cb")
	f.Fuzz(func(t *testing.T, got string) {
		if redirectMatches("https://client.example/cb", got) != (got == "https://client.example/cb") {
			t.Errorf("redirectMatches(https://client.example/cb, %q) = %t", got, !(got == "https://client.example/cb"))
		}
		if redirectMatches("http://127.0.0.1/cb", got) && !strings.HasPrefix(got, "http://127.0.0.1") {
			t.Errorf("redirectMatches(http://127.0.0.1/cb, %q) = true, want only loopback", got)
		}
	})
}

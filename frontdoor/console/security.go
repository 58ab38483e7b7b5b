package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
)

// CSP is the console's Content-Security-Policy: scripts, styles and
// connections only from the console itself, no inline script or style,
// no framing, forms posted only here. Everything members write is
// rendered escaped; this is the second wall if something slips past.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// maxFormBytes bounds a form's body: a comment or a note (20000
// characters, up to 4 bytes each) with room to spare.
const maxFormBytes = 256 << 10

// secureHeaders sets the headers every console answer carries, and
// bounds the body of every request.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY") // frame-ancestors for browsers that predate it
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// csrfKeys sign the console's CSRF tokens. A token is the HMAC-SHA256 of
// what it binds: a signed-in session's id, or before sign-in the random
// value of the pre-session cookie. A form posted from elsewhere cannot
// carry it, since another site can neither read the page nor compute it.
type csrfKeys [][]byte

// token is the CSRF token of id, made with the signing key.
func (k csrfKeys) token(purpose, id string) string {
	return base64.RawURLEncoding.EncodeToString(k.mac(k[0], purpose, id))
}

// valid reports whether tok is the token of id under any of the keys.
func (k csrfKeys) valid(purpose, id, tok string) bool {
	got, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || id == "" {
		return false
	}
	for _, key := range k {
		if hmac.Equal(got, k.mac(key, purpose, id)) {
			return true
		}
	}
	return false
}

func (csrfKeys) mac(key []byte, purpose, id string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(id))
	return m.Sum(nil)
}

// The purposes of CSRF tokens, so that a token for one can never pass
// for the other.
const (
	csrfSession    = "session"
	csrfPreSession = "pre-session"
)

package sessions

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"strings"
)

// sidEncoding writes session ids: lowercase base32, no padding, so an id
// is safe in a cookie, a log line and metadata.
var sidEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newSID returns a random 128-bit session id.
func newSID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return sidEncoding.EncodeToString(b)
}

// newSecret returns a random 256-bit secret, URL-safe: a cookie's secret
// or a sign-in link's.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashSecret is what is stored of a secret: its SHA-256. A secret has 256
// random bits, so no slow hash is needed.
func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// sameHash compares a stored hash with a secret's in constant time.
func sameHash(stored []byte, secret string) bool {
	return subtle.ConstantTimeCompare(stored, hashSecret(secret)) == 1
}

// cookieValue is what a front door sets as the session cookie.
func cookieValue(sid, secret string) string { return sid + "." + secret }

// parseCookie splits a cookie into its session id and secret.
func parseCookie(cookie string) (sid, secret string, ok bool) {
	sid, secret, ok = strings.Cut(cookie, ".")
	if !ok || sid == "" || secret == "" || len(cookie) > 200 {
		return "", "", false
	}
	return sid, secret, true
}

package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// randomToken is n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashOf is the SHA-256 a code, refresh token or secret is stored as:
// a database read leaks none of them.
func hashOf(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

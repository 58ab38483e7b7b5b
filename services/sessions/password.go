package sessions

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/taskwire/taskwire/internal/domainerr"
)

// The argon2id parameters of new hashes: OWASP's minimum (19 MiB, two
// passes, one lane). A hash made with others still verifies, and is made
// again with these at the next sign-in.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// The bounds of a password: long enough to resist guessing, short enough
// that hashing it costs no more than any other.
const (
	MinPassword = 12   // characters
	maxPassword = 1024 // bytes
)

var b64 = base64.RawStdEncoding

// HashPassword returns pw hashed with argon2id and a random salt, in the
// PHC string format: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return encodePHC(salt, key), nil
}

// dummyHash returns a hash in today's format that no password matches: its
// key is random bytes, the hash of no known password. Verifying against it
// costs one argon2id hash, as against an account's, and making it costs
// nothing, where hashing a random secret would hold 19 MiB at every start
// (which a GOGC of 400 then keeps in the heap's goal long after).
func dummyHash() string {
	salt := make([]byte, argonSaltLen)
	key := make([]byte, argonKeyLen)
	rand.Read(salt) // never fails (crypto/rand)
	rand.Read(key)
	return encodePHC(salt, key)
}

// encodePHC writes salt and key with today's parameters in the PHC
// string format.
func encodePHC(salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// phc is a parsed argon2id hash.
type phc struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

var errBadHash = errors.New("sessions: not an argon2id hash in the PHC string format")

func parsePHC(encoded string) (phc, error) {
	var p phc
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &p.threads); err != nil {
		return p, errBadHash
	}
	var err error
	if p.salt, err = b64.DecodeString(parts[4]); err != nil {
		return p, errBadHash
	}
	if p.key, err = b64.DecodeString(parts[5]); err != nil || len(p.key) == 0 {
		return p, errBadHash
	}
	if p.memory == 0 || p.time == 0 || p.threads == 0 {
		return p, errBadHash
	}
	return p, nil
}

// VerifyPassword reports whether pw matches encoded, compared in constant
// time, and whether encoded should be made again with today's parameters.
func VerifyPassword(encoded, pw string) (ok, rehash bool, err error) {
	p, err := parsePHC(encoded)
	if err != nil {
		return false, false, err
	}
	key := argon2.IDKey([]byte(pw), p.salt, p.time, p.memory, p.threads, uint32(len(p.key)))
	ok = subtle.ConstantTimeCompare(key, p.key) == 1
	rehash = p.memory != argonMemory || p.time != argonTime || p.threads != argonThreads ||
		len(p.key) != argonKeyLen || len(p.salt) != argonSaltLen
	return ok, rehash, nil
}

// checkNewPassword refuses a password too short or too long to set.
func checkNewPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < MinPassword {
		return domainerr.New(domainerr.Invalid,
			"The new password has %d characters: use at least %d (a few unrelated words make a good one).", n, MinPassword)
	}
	if len(pw) > maxPassword {
		return domainerr.New(domainerr.Invalid, "The new password is longer than %d bytes: use a shorter one.", maxPassword)
	}
	return nil
}

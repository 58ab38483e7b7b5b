package sessions_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"

	"github.com/taskwire/taskwire/services/sessions"
)

// weakHash hashes pw as an older version might have: 8 MiB, one pass.
func weakHash(t *testing.T, pw string) string {
	t.Helper()
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, 1, 8*1024, 1, 32)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=19$m=8192,t=1,p=1$%s$%s", enc.EncodeToString(salt), enc.EncodeToString(key))
}

func TestPasswordHash(t *testing.T) {
	hash, err := sessions.HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(hash, "$"); len(parts) != 6 || parts[1] != "argon2id" || parts[3] != "m=19456,t=2,p=1" {
		t.Errorf("HashPassword = %q, want $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>", hash)
	}
	for _, c := range []struct {
		hash, pw   string
		ok, rehash bool
	}{
		{hash, "a long enough password", true, false},
		{hash, "a long enough passworD", false, false},
		{weakHash(t, "old password here"), "old password here", true, true},
	} {
		ok, rehash, err := sessions.VerifyPassword(c.hash, c.pw)
		if err != nil || ok != c.ok || rehash != c.rehash {
			t.Errorf("VerifyPassword(%q, %q) = %v, %v, %v; want %v, %v, nil", c.hash, c.pw, ok, rehash, err, c.ok, c.rehash)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=x,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=0,t=1,p=1$AAAA$AAAA"} {
		if _, _, err := sessions.VerifyPassword(bad, "x"); err == nil {
			t.Errorf("VerifyPassword(%q) = nil error, want one", bad)
		}
	}
}

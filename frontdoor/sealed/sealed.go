// Package sealed turns small values into opaque strings that only holders
// of a shared key can read or forge: AES-256-GCM, with the key's id in
// front so keys can rotate. Front door replicas that share the keys accept
// each other's strings, so state handed to a client (a request state, a
// session id) needs no shared store.
package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key in bytes.
const KeySize = 32

// ErrInvalid reports a string that was not sealed by any current key, was
// altered, or was sealed for another purpose.
var ErrInvalid = errors.New("sealed: invalid or foreign value")

// Box seals with its newest key and opens with any of its keys.
type Box struct {
	keys []key
}

type key struct {
	id   string
	aead cipher.AEAD
}

// NewBox returns a Box for keys, newest first: the first seals, all open.
func NewBox(keys ...[]byte) (*Box, error) {
	if len(keys) == 0 {
		return nil, errors.New("sealed: no key")
	}
	b := &Box{}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("sealed: key %d has %d bytes, want %d", i, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(k)
		b.keys = append(b.keys, key{id: hex.EncodeToString(sum[:4]), aead: aead})
	}
	return b, nil
}

// Seal returns plaintext sealed for purpose: "<key id>.<base64url>", all
// visible ASCII. Opening it for another purpose fails.
func (b *Box) Seal(purpose string, plaintext []byte) string {
	k := b.keys[0]
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	out := k.aead.Seal(nonce, nonce, plaintext, []byte(purpose))
	return k.id + "." + base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the plaintext of s, sealed for purpose by one of b's keys.
func (b *Box) Open(purpose, s string) ([]byte, error) {
	id, body, ok := strings.Cut(s, ".")
	if !ok {
		return nil, ErrInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, ErrInvalid
	}
	for _, k := range b.keys {
		if k.id != id || len(raw) < k.aead.NonceSize() {
			continue
		}
		n := k.aead.NonceSize()
		if pt, err := k.aead.Open(nil, raw[:n], raw[n:], []byte(purpose)); err == nil {
			return pt, nil
		}
	}
	return nil, ErrInvalid
}

// Package cursor makes the cursors of paged lists. A cursor is sealed
// with XChaCha20-Poly1305 under a key all workers of a deployment share:
// a caller can read nothing in it (not the tenant, not a time, not an id,
// not even how long the values are, within a block) and can neither forge
// nor alter one. It is bound to the tenant, the list and the query it came
// from as associated data, so it cannot be used in another tenant, on
// another list or with other filters. Two cursors of the same page differ
// (a random nonce each), so equal cursors tell a caller nothing either.
package cursor

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/taskwire/taskwire/internal/domainerr"
)

// MinKeyLen is the shortest key New accepts.
const MinKeyLen = 16

// Page sizes every list shares.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// version starts every cursor and its associated data, so the format can
// change. Version 1 cursors (HMAC'd, readable) are no longer accepted:
// their first byte after base64 decoding is never this one.
const version byte = 2

// keyInfo is the HKDF purpose of the sealing key derived from New's key.
const keyInfo = "taskwire cursor xchacha20-poly1305 v2"

// block is what a cursor's plaintext is padded to a multiple of, so its
// length does not tell how many digits an id or a time has.
const block = 32

// sep separates a payload's fields; positions may hold anything else.
const sep = "\x1f"

// Sealer seals and opens cursors under one key.
type Sealer struct {
	aead cipher.AEAD
}

// New returns a Sealer with key, at least MinKeyLen bytes. The sealing key
// is derived from it (HKDF-SHA256), so key may be a shared secret of any
// length.
func New(key []byte) (*Sealer, error) {
	if len(key) < MinKeyLen {
		return nil, errors.New("cursor: key is shorter than 16 bytes")
	}
	k, err := hkdf.Key(sha256.New, key, nil, keyInfo, chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	aead, err := chacha20poly1305.NewX(k)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal returns the cursor of the page after pos: the sort values of the
// last item of a page, in the list named list (e.g. "tasks") of tenant,
// under the query whose digest is query (see Query).
func (s *Sealer) Seal(tenant int, list, query string, pos ...string) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce) // never fails, per crypto/rand
	out := append([]byte{version}, nonce...)
	out = s.aead.Seal(out, nonce, pad(strings.Join(pos, sep)), associated(tenant, list, query))
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the position sealed in c, which must have been sealed for
// the same tenant, list and query, with n position values. The empty cursor
// opens to nil: the first page. Any other cursor is refused with an
// Invalid error telling the caller what to do.
func (s *Sealer) Open(c string, tenant int, list, query string, n int) ([]string, error) {
	if c == "" {
		return nil, nil
	}
	bad := domainerr.New(domainerr.Invalid,
		"cursor is not valid here: pass the next_cursor of the previous page unchanged, with the same filters, or leave cursor out to start from the first page")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	ns := s.aead.NonceSize()
	if err != nil || len(raw) < 1+ns+s.aead.Overhead() || raw[0] != version {
		return nil, bad
	}
	plain, err := s.aead.Open(nil, raw[1:1+ns], raw[1+ns:], associated(tenant, list, query))
	if err != nil {
		return nil, bad
	}
	payload, ok := unpad(plain)
	if !ok {
		return nil, bad
	}
	f := []string{}
	if payload != "" || n > 0 {
		f = strings.Split(payload, sep)
	}
	if len(f) != n {
		return nil, bad
	}
	return f, nil
}

// associated is the associated data of a cursor: what it is bound to,
// each part prefixed by its length so no two bindings read the same.
func associated(tenant int, list, query string) []byte {
	b := []byte{version}
	for _, p := range []string{strconv.Itoa(tenant), list, query} {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	return b
}

// pad returns s followed by 0x80 and zeros up to a multiple of block
// (ISO/IEC 7816-4 padding).
func pad(s string) []byte {
	n := (len(s)/block + 1) * block
	b := make([]byte, n)
	copy(b, s)
	b[len(s)] = 0x80
	return b
}

// unpad undoes pad.
func unpad(b []byte) (string, bool) {
	i := len(b) - 1
	for i >= 0 && b[i] == 0 {
		i--
	}
	if i < 0 || b[i] != 0x80 {
		return "", false
	}
	return string(b[:i]), true
}

// Query returns a short digest of a query's filters, which a cursor
// is bound to: a cursor continues only the query it came from. Pass every
// filter and the sort order, resolved (ids rather than names).
func Query(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}

// Limit checks a page size: 0 means DefaultLimit, and 1 to MaxLimit are
// accepted.
func Limit(limit int32) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 1 || limit > MaxLimit:
		return 0, domainerr.New(domainerr.Invalid, "limit %d is out of range: use 1 to %d, or leave it out for %d", limit, MaxLimit, DefaultLimit)
	}
	return int(limit), nil
}

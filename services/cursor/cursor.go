// Package cursor makes the cursors of paged lists: opaque to callers,
// bound to the tenant, the list and the query they came from, and
// tamper-evident (HMAC-SHA256 under a key all workers of a deployment
// share), so a cursor cannot be forged, altered, or used in another
// tenant, on another list or with other filters.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/taskwire/taskwire/services/domainerr"
)

// MinKeyLen is the shortest key New accepts.
const MinKeyLen = 16

// Page sizes every list shares.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// version starts every payload, so the format can change.
const version = "c1"

// macLen is how much of the HMAC a cursor carries: 128 bits.
const macLen = 16

// sep separates a payload's fields; positions may hold anything else.
const sep = "\x1f"

// Sealer seals and opens cursors under one key.
type Sealer struct {
	key []byte
}

// New returns a Sealer with key, at least MinKeyLen bytes.
func New(key []byte) (*Sealer, error) {
	if len(key) < MinKeyLen {
		return nil, errors.New("cursor: key is shorter than 16 bytes")
	}
	return &Sealer{key: append([]byte(nil), key...)}, nil
}

// Seal returns the cursor of the page after pos: the sort values of the
// last item of a page, in the list named list (e.g. "tasks") of tenant,
// under the query whose digest is query (see Query).
func (s *Sealer) Seal(tenant int, list, query string, pos ...string) string {
	payload := strings.Join(append([]string{version, strconv.Itoa(tenant), list, query}, pos...), sep)
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
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
	p, m, ok := strings.Cut(c, ".")
	if !ok {
		return nil, bad
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(string(raw))) {
		return nil, bad
	}
	f := strings.Split(string(raw), sep)
	if len(f) != 4+n || f[0] != version || f[1] != strconv.Itoa(tenant) || f[2] != list || f[3] != query {
		return nil, bad
	}
	return f[4:], nil
}

func (s *Sealer) mac(payload string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte("taskwire cursor\x00" + payload))
	return h.Sum(nil)[:macLen]
}

// Query returns a short digest of a query's filters, which a cursor
// carries: a cursor continues only the query it came from. Pass every
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

package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taskwire/taskwire/services/domainerr"
)

// position is where a page of the log ended: the last event's time and id
// (the log is ordered by time, then id, newest first), in which tenant and
// under which filter.
type position struct {
	tenant int
	at     time.Time
	id     int
	filter string // filterKey of the query
}

// cursorVersion starts every cursor's payload, so the format can change.
const cursorVersion = "a1"

// macLen is how much of the HMAC a cursor carries: 128 bits.
const macLen = 16

// seal returns p as an opaque cursor: its fields and an HMAC over them
// under the store's key, so a cursor cannot be forged or altered, nor used
// in another tenant or with other filters.
func (s *Store) seal(p position) string {
	payload := strings.Join([]string{
		cursorVersion, strconv.Itoa(p.tenant), strconv.FormatInt(p.at.UnixMicro(), 10), strconv.Itoa(p.id), p.filter,
	}, ".")
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

// open returns the position of cursor c, handed out for tenant and filter.
// Anything else, altered or not, is Invalid in the same words.
func (s *Store) open(c string, tenant int, filter string) (position, error) {
	p, ok := s.parse(c)
	if !ok || p.tenant != tenant || p.filter != filter {
		return position{}, domainerr.New(domainerr.Invalid,
			"cursor is not valid: pass the next_cursor of the previous page unchanged, with the same filters, or leave cursor out to start from the newest event")
	}
	return p, nil
}

func (s *Store) parse(c string) (position, bool) {
	enc, sig, ok := strings.Cut(c, ".")
	if !ok {
		return position{}, false
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(enc)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(string(raw))) {
		return position{}, false
	}
	f := strings.Split(string(raw), ".")
	if len(f) != 5 || f[0] != cursorVersion {
		return position{}, false
	}
	tenant, err1 := strconv.Atoi(f[1])
	at, err2 := strconv.ParseInt(f[2], 10, 64)
	id, err3 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return position{}, false
	}
	return position{tenant: tenant, at: time.UnixMicro(at).UTC(), id: id, filter: f[4]}, true
}

func (s *Store) mac(payload string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte("taskwire audit cursor\x00" + payload))
	return h.Sum(nil)[:macLen]
}

// filterKey is a short digest of a resolved filter, which a cursor
// carries: a cursor continues the query it came from only.
func filterKey(memberID int, f Filter) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%d\x00%d",
		memberID, f.Tool, f.Outcome, micros(f.Since), micros(f.Until)))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

package audit

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
)

// listName names the audit log's cursors (see package cursor).
const listName = "audit"

// position is where a page of the log ended: the last event's time and id
// (the log is ordered by time, then id, newest first).
type position struct {
	at time.Time
	id int
}

// seal returns the cursor of the page after p, bound to tenant and to the
// query's filter (filterKey).
func (s *Store) seal(tenant int, filter string, p position) string {
	return s.cursors.Seal(tenant, listName, filter, strconv.FormatInt(p.at.UnixMicro(), 10), strconv.Itoa(p.id))
}

// open returns the position of cursor c, handed out for tenant and filter.
// Anything else, altered or not, is Invalid in the same words.
func (s *Store) open(c string, tenant int, filter string) (position, error) {
	f, err := s.cursors.Open(c, tenant, listName, filter, 2)
	if err != nil {
		return position{}, err
	}
	at, err1 := strconv.ParseInt(f[0], 10, 64)
	id, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil { // sealed by us, so never; refused all the same
		return position{}, domainerr.New(domainerr.Invalid, "cursor is not valid: leave cursor out to start from the newest event")
	}
	return position{at: time.UnixMicro(at).UTC(), id: id}, nil
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

package identity

import (
	"context"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/metadata"
)

// MaxSessionLabel is the most characters of a session label the workers
// keep.
const MaxSessionLabel = 100

// SessionLabel returns the session label of the call's metadata
// (MDSessionLabel), as the audit log and the activity log keep it: one
// value, valid UTF-8 of printable characters only, else none; at most
// MaxSessionLabel characters of it. It is the client's own word, kept as
// information only, never trusted for anything. (gRPC lets only
// printable ASCII through, and the front door sends no other; the
// workers do not rely on it.)
func SessionLabel(ctx context.Context) string {
	v := metadata.ValueFromIncomingContext(ctx, MDSessionLabel)
	if len(v) != 1 || !utf8.ValidString(v[0]) {
		return ""
	}
	n := 0
	for i, r := range v[0] {
		if !unicode.IsPrint(r) {
			return ""
		}
		if n++; n > MaxSessionLabel {
			return v[0][:i]
		}
	}
	return v[0]
}

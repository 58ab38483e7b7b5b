package board

import (
	"context"
	"strings"
	"unicode"

	"google.golang.org/grpc/metadata"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

// maxClient bounds the client an activity names, in characters.
const maxClient = 100

// clientOf is the client the caller of ctx acts through, as the activity
// log records it: the session label the front door forwarded
// (identity.MDSessionLabel) on one line, without control or format
// characters, at most maxClient characters of it. A console session
// records none: the person acted in the console. It is the client's own
// word, kept as information only, never trusted for anything.
func clientOf(ctx context.Context) string {
	if c, ok := identity.FromContext(ctx); ok && c.IsSession() {
		return ""
	}
	v := metadata.ValueFromIncomingContext(ctx, identity.MDSessionLabel)
	if len(v) != 1 {
		return ""
	}
	return cleanClient(v[0])
}

// cleanClient is label as an activity keeps it: valid UTF-8 of printable
// characters, each run of whitespace one space, at most maxClient
// characters.
func cleanClient(label string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case !unicode.IsPrint(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(label, ""))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxClient {
		s = strings.TrimSpace(string(r[:maxClient]))
	}
	return s
}

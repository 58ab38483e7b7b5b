package board

import (
	"context"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

// clientOf is the client the caller of ctx acts through, as the activity
// log records it: the session label, by the rule the audit log keeps it
// by (identity.SessionLabel). A console session records none: the person
// acted in the console.
func clientOf(ctx context.Context) string {
	if c, ok := identity.FromContext(ctx); ok && c.IsSession() {
		return ""
	}
	return identity.SessionLabel(ctx)
}

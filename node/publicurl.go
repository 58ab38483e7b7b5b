package node

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/services/tokens"
)

// warnOtherPublicURL logs a warning for each other public URL live tokens
// of db were issued for: tokens are bound to the URL, so a server started
// on another address (or reached by another name) refuses them all, and
// whoever starts it should hear why, and what to do, at once.
func warnOtherPublicURL(ctx context.Context, db *ent.Client, publicURL string, log *slog.Logger) {
	st, err := tokens.New(tokens.Config{Client: db, Logger: log})
	if err != nil {
		return
	}
	others, err := st.IssuedElsewhere(ctx, publicURL)
	if err != nil {
		log.Warn("cannot check which public URL live tokens were issued for", "err", err)
		return
	}
	for _, url := range slices.Sorted(maps.Keys(others)) {
		log.Warn("live tokens were issued for another public URL: they are refused here; start with --public-url "+url+" to keep them, or mint new ones",
			"tokens", others[url], "issued_for", url, "public_url", publicURL)
	}
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/authz"
	"github.com/taskwire/taskwire/services/tokens"
)

// printCreated tells what a token just created is, on stderr: the token
// alone goes to stdout, so it can be captured.
func printCreated(w io.Writer, info tokens.Info, tenant, publicURL string) {
	if info.Admin {
		fmt.Fprintf(w, "admin token %s for %s on tenant %s, expires %s, for the admin API of %s (taskwire admin --url %s)\n",
			info.ID, info.Member, tenant, info.ExpiresAt.Format(time.RFC3339), publicURL, publicURL)
		return
	}
	fmt.Fprintf(w, "token %s for %s on tenant %s, scopes %s, toolsets %s, expires %s, audience %s\n",
		info.ID, info.Member, tenant, strings.Join(info.Scopes, ","), authz.ToolsetsText(info.Toolsets), info.ExpiresAt.Format(time.RFC3339), publicURL+"/api/mcp")
}

// checkTTLFlag refuses a lifetime flag set to zero or less, or past max
// when max is known (> 0), in one sentence naming the flag and the
// maximum; a flag left out means the default.
func checkTTLFlag(fs *flag.FlagSet, name string, ttl, max time.Duration) error {
	if !isSet(fs, name) {
		return nil
	}
	maxText := "the server's --max-token-ttl (2160h unless set)"
	if max > 0 {
		maxText = authn.FormatTTL(max) + " (--max-token-ttl)"
	}
	switch {
	case ttl <= 0:
		return fmt.Errorf("--%s %v: a token must live a positive time, at most %s; leave --%s out for the default", name, ttl, maxText, name)
	case max > 0 && ttl > max:
		return fmt.Errorf("--%s %s: a token may live at most %s", name, authn.FormatTTL(ttl), maxText)
	}
	return nil
}

// checkAdminFlags refuses scopes or toolsets for an admin token, which
// has none.
func checkAdminFlags(fs *flag.FlagSet, admin bool) error {
	if admin && (isSet(fs, "scopes") || isSet(fs, "toolsets")) {
		return errors.New("--admin mints an admin token, which has no scopes or toolsets (the member's role says what it may do): leave out --scopes and --toolsets")
	}
	return nil
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

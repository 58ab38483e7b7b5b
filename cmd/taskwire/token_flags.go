package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/services/tokens"
)

// tokenRequest is the token a create command asks for.
type tokenRequest struct {
	tenant, member, label string
	scopes, toolsets      []string
	ttl                   time.Duration // 0: the default
	admin                 bool
}

// createFlags are the flags of the commands that create a token: `token
// create` and `admin tokens create`.
type createFlags struct {
	member, scopes, toolsets, label string
	ttl                             time.Duration
	admin                           bool
}

func (f *createFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.member, "member", "", "handle of the member the token acts as (required)")
	fs.StringVar(&f.scopes, "scopes", "read,comment,write", "comma-separated scopes of an MCP token: read, comment, write")
	fs.StringVar(&f.toolsets, "toolsets", "", toolsetsFlagUsage)
	fs.DurationVar(&f.ttl, "ttl", 0, "how long the token is valid, at most --max-token-ttl (default 2160h, or --max-token-ttl if shorter)")
	fs.StringVar(&f.label, "label", "", `what the token is for, shown when tokens are listed, e.g. "laptop claude"`)
	fs.BoolVar(&f.admin, "admin", false, "mint an admin token, for the admin API (taskwire admin), instead of an MCP token: for an owner or admin who is a person; it has no scopes")
}

// request checks the flags parsed into fs and returns the token they ask
// for on tenant; max, when known (> 0), bounds --ttl.
func (f *createFlags) request(fs *flag.FlagSet, tenant string, max time.Duration) (tokenRequest, error) {
	if f.member == "" {
		return tokenRequest{}, errors.New("name the member the token acts as with --member HANDLE")
	}
	if err := checkTTLFlag(fs, "ttl", f.ttl, max); err != nil {
		return tokenRequest{}, err
	}
	if err := checkAdminFlags(fs, f.admin); err != nil {
		return tokenRequest{}, err
	}
	req := tokenRequest{tenant: tenant, member: f.member, label: f.label, toolsets: commaList(f.toolsets), ttl: f.ttl, admin: f.admin}
	if !f.admin {
		req.scopes = commaList(f.scopes)
	}
	return req, nil
}

// printCreated tells what the token raw, just created, is, on stderr: the
// token alone goes to stdout, so it can be captured. serverURL reaches the
// server's admin API.
func printCreated(w io.Writer, raw string, info tokens.Info, tenant, serverURL string) {
	if info.Admin {
		fmt.Fprintf(w, "admin token %s for %s on tenant %s, expires %s, for the admin API of %s (taskwire admin --url %s)\n",
			info.ID, info.Member, tenant, info.ExpiresAt.Format(time.RFC3339), serverURL, serverURL)
		return
	}
	fmt.Fprintf(w, "token %s for %s on tenant %s, scopes %s, toolsets %s, expires %s, audience %s\n",
		info.ID, info.Member, tenant, strings.Join(info.Scopes, ","), authz.ToolsetsText(info.Toolsets), info.ExpiresAt.Format(time.RFC3339), audience(raw))
}

// audience is the "aud" of the token raw, read without verifying it (it
// was just minted): the endpoint of the public URL, where the token is to
// be used, which the URL the command reached the server at (the listen
// address a serve records in its data directory) need not be.
func audience(raw string) string {
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &c); err != nil || len(c.Audience) == 0 {
		return "unknown"
	}
	return strings.Join(c.Audience, " ")
}

// tokenTenant is the tenant the token raw was minted on, read without
// verifying it (it was just minted), for a command that did not name one.
func tokenTenant(raw string) string {
	var c jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &c); err == nil {
		if t, ok := c["tenant"].(string); ok && t != "" {
			return t
		}
	}
	return "unknown"
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

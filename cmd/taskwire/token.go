package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/store"
	"github.com/taskwire/taskwire/services/tenancy"
)

// runTokenCreate mints a token for a member of the database serve uses. It
// needs the same data directory (or --db and --signing-key) and the same
// public URL, since the URL is the token's audience.
func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("taskwire token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.commonFlags(fs)
	member := fs.String("member", "", "handle of the member the token acts as (required)")
	tenant := fs.String("tenant", "default", "slug of the member's tenant")
	scopes := fs.String("scopes", "read,comment,write", "comma-separated scopes: read, comment, write")
	ttl := fs.Duration("ttl", authn.DefaultTTL, "how long the token is valid")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *member == "" {
		fs.Usage()
		return fmt.Errorf("--member is required")
	}
	if err := cfg.resolve(hostPort(cfg.Addr)); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := tenancy.FindMember(ctx, db, *tenant, *member)
	if err != nil {
		return err
	}
	key, _, err := authn.LoadOrCreateKey(cfg.SigningKey)
	if err != nil {
		return err
	}
	is, err := authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: cfg.PublicURL, Audience: cfg.endpoint()})
	if err != nil {
		return err
	}
	req := authnRequest(*tenant, m.ID, strings.Split(*scopes, ","))
	req.TTL = *ttl
	token, minted, err := is.Mint(req)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "token %s for %s on tenant %s, scopes %s, expires %s, audience %s\n",
		minted.ID, *member, *tenant, *scopes, minted.ExpiresAt.Format(time.RFC3339), cfg.endpoint())
	return nil
}

// hostPort is addr as a client would dial it.
func hostPort(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/taskwire/taskwire/services/oauth"
)

// oauthFlags declares the OAuth authorization server's flags (serve,
// worker: the worker runs it, as it holds the database).
func (c *config) oauthFlags(fs *flag.FlagSet) {
	c.oauthDeclared = true
	fs.StringVar(&c.OAuthClientsFile, "oauth-clients", env("TASKWIRE_OAUTH_CLIENTS", ""),
		"JSON file of the OAuth clients the operator registers: an array of {client_id, client_name, redirect_uris, logo_uri, client_secret_sha256} (env TASKWIRE_OAUTH_CLIENTS; default: none)")
	fs.BoolVar(&c.OAuth.Clients.OnlyConfigured, "oauth-only-configured", env("TASKWIRE_OAUTH_ONLY_CONFIGURED", "") == "true",
		"accept only the OAuth clients of --oauth-clients: no dynamic registration, no Client ID Metadata Documents (env TASKWIRE_OAUTH_ONLY_CONFIGURED=true)")
	fs.DurationVar(&c.OAuth.Limits.AccessTTL, "oauth-access-ttl", c.envDuration("TASKWIRE_OAUTH_ACCESS_TTL", oauth.DefaultAccessTTL),
		"how long an access token issued to an OAuth client lives before the client refreshes it, e.g. 1h; at most --max-token-ttl (env TASKWIRE_OAUTH_ACCESS_TTL)")
}

// checkOAuth refuses an access token lifetime that is not positive or
// longer than tokens may live, and reads the --oauth-clients file, for
// the commands that declare the flags.
func (c *config) checkOAuth() error {
	if !c.oauthDeclared {
		return nil
	}
	switch ttl := c.OAuth.Limits.AccessTTL; {
	case ttl <= 0:
		return fmt.Errorf("--oauth-access-ttl %v: want a positive duration, e.g. 1h", ttl)
	case c.MaxTokenTTL > 0 && ttl > c.MaxTokenTTL:
		return fmt.Errorf("--oauth-access-ttl %v is longer than --max-token-ttl %v: shorten it", ttl, c.MaxTokenTTL)
	case ttl < time.Second:
		return fmt.Errorf("--oauth-access-ttl %v: want at least a second", ttl)
	}
	clients, err := loadOAuthClients(c.OAuthClientsFile)
	if err != nil {
		return err
	}
	c.OAuth.Clients.Configured = clients
	if c.OAuth.Clients.OnlyConfigured && len(clients) == 0 {
		return fmt.Errorf("--oauth-only-configured accepts only the clients of --oauth-clients, and it names none: name a file of clients, or leave the switch off")
	}
	return nil
}

// loadOAuthClients reads the clients of the file at path; empty path:
// none. Unknown fields are refused, so a typo does not silently drop a
// setting (a secret's hash above all).
func loadOAuthClients(path string) ([]oauth.ConfiguredClient, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--oauth-clients: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var clients []oauth.ConfiguredClient
	if err := dec.Decode(&clients); err != nil {
		return nil, fmt.Errorf("--oauth-clients %s: %v: want a JSON array of {client_id, client_name, redirect_uris, logo_uri, client_secret_sha256}", path, err)
	}
	if err := (oauth.Clients{Configured: clients}).Validate(); err != nil {
		return nil, fmt.Errorf("--oauth-clients %s: %w", path, err)
	}
	return clients, nil
}

// Package oauth is Taskwire's OAuth 2.1 authorization server for MCP
// clients (taskwire.v1.OAuthService): clients known by a Client ID
// Metadata Document, by dynamic registration (RFC 7591) or by the
// operator's configuration; the consent behind the console's
// authorization page; authorization codes with PKCE; access tokens (the
// recorded EdDSA JWTs the front door verifies, bound to their grant) and
// rotating refresh tokens; revocation (RFC 7009). Workers serve it to
// front doors, which have no database; everything lives in the database,
// so a flow begun on one front door completes on another.
package oauth

import (
	"time"
)

// The defaults of Limits.
const (
	DefaultAccessTTL     = time.Hour
	DefaultRefreshIdle   = 30 * 24 * time.Hour
	DefaultGrantLifetime = 90 * 24 * time.Hour
	DefaultCodeTTL       = 5 * time.Minute
)

// Limits are the lifetimes of what the authorization server issues; a
// zero field means its default.
type Limits struct {
	// AccessTTL is how long an access token lives (DefaultAccessTTL).
	AccessTTL time.Duration
	// RefreshIdle ends a refresh token unused this long: the sliding
	// lifetime (DefaultRefreshIdle).
	RefreshIdle time.Duration
	// GrantLifetime ends a grant this long after consent, however used:
	// the absolute lifetime, after which the person consents again
	// (DefaultGrantLifetime).
	GrantLifetime time.Duration
	// CodeTTL is how long an authorization code may wait to be exchanged
	// (DefaultCodeTTL).
	CodeTTL time.Duration
}

// ConfiguredClient is a client the operator registered by configuration
// (--oauth-clients): public (no secret) unless SecretHash is set.
type ConfiguredClient struct {
	ClientID     string   `json:"client_id"`
	Name         string   `json:"client_name"`
	RedirectURIs []string `json:"redirect_uris"`
	LogoURI      string   `json:"logo_uri,omitempty"`
	// SecretSHA256 is the hex SHA-256 of the client's secret, for a
	// confidential client; empty: a public client (PKCE only).
	SecretSHA256 string `json:"client_secret_sha256,omitempty"`
}

// Clients says which clients may connect.
type Clients struct {
	// Configured are the operator's clients.
	Configured []ConfiguredClient
	// OnlyConfigured refuses every other client: no registration, no
	// metadata documents (--oauth-only-configured).
	OnlyConfigured bool
	// MetadataLoopback lets Client ID Metadata Documents be fetched from
	// loopback addresses (and over http from them), trusting any
	// certificate (a test's own, over https). For tests only: it opens
	// the server-side request forgery guard.
	MetadataLoopback bool
}

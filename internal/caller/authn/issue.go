package authn

import (
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/taskwire/taskwire/internal/caller/authz"
)

// DefaultTTL is how long a token lives when MintRequest names no TTL.
const DefaultTTL = 90 * 24 * time.Hour

// DefaultMaxTTL is the longest a token may live when the deployment sets
// no maximum (--max-token-ttl). Every token's lifetime is bounded: a
// token's signing key verifies until the token expires, so a token minted
// to live for decades would keep a retired key alive as long.
const DefaultMaxTTL = DefaultTTL

// claims is the payload of a Taskwire token. sub is the member id in
// decimal; scope is space-separated, as in OAuth. toolsets limits the
// token to those toolsets; absent means every toolset, so tokens minted
// before toolsets existed keep what they allowed.
type claims struct {
	jwt.RegisteredClaims
	Tenant   string   `json:"tenant"`
	Scope    string   `json:"scope,omitempty"` // none in an admin token
	Toolsets []string `json:"toolsets,omitempty"`
}

// IssuerConfig configures an Issuer.
type IssuerConfig struct {
	Key *Key // signs every token; its ID becomes the "kid" header
	// Current, when set instead of Key, returns the key to sign each token
	// with, so a keyring can rotate keys under a running Issuer; it
	// returns an error when no key can sign.
	Current  func() (*Key, error)
	Issuer   string // the "iss" claim
	Audience string // the "aud" claim: the URL of the MCP endpoint
}

// Validate reports whether c can mint tokens.
func (c IssuerConfig) Validate() error {
	switch {
	case c.Current == nil && !c.Key.valid():
		return errors.New("authn: issuer needs a key")
	case c.Current != nil && c.Key != nil:
		return errors.New("authn: issuer takes a key or a function returning one, not both")
	case c.Issuer == "":
		return errors.New("authn: issuer needs an issuer name")
	case c.Audience == "":
		return errors.New("authn: issuer needs an audience")
	}
	return nil
}

// AdminAudience is the "aud" of the admin tokens of the server whose
// public URL is publicURL: its admin API. MCP tokens name the MCP endpoint
// instead, so neither kind is accepted where the other is.
func AdminAudience(publicURL string) string {
	return strings.TrimSuffix(publicURL, "/") + "/admin"
}

// Issuer mints tokens with one key.
type Issuer struct {
	cfg IssuerConfig
}

// NewIssuer returns an Issuer for cfg.
func NewIssuer(cfg IssuerConfig) (*Issuer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Issuer{cfg: cfg}, nil
}

// Audience is the "aud" of the MCP tokens is mints: the MCP endpoint's
// URL, which an OAuth client names as its resource (RFC 8707).
func (is *Issuer) Audience() string { return is.cfg.Audience }

// MintRequest names who a token is for and what it allows.
type MintRequest struct {
	Tenant string
	Member int
	Scopes []string
	// Toolsets limits the token to these toolsets (authz.AllToolsets);
	// none means every toolset.
	Toolsets []string
	TTL      time.Duration // 0 means DefaultTTL
	// Admin mints an admin token (audience AdminAudience), which carries
	// no scopes and no toolsets: the admin API authorizes it by the
	// member's role.
	Admin bool
}

// Minted describes a token that was minted, for storing and revoking it.
type Minted struct {
	ID        string // the "jti" claim
	ExpiresAt time.Time
	Toolsets  []string // the "toolsets" claim: deduplicated, in authz.AllToolsets order
	Issuer    string   // the "iss" claim: the public URL
	KeyID     string   // the key that signed it (the "kid" header)
}

// Mint signs a token for r. The token itself is returned once and never
// stored; keep Minted to list and revoke it.
func (is *Issuer) Mint(r MintRequest) (string, Minted, error) {
	scopes, err := checkMint(r)
	if err != nil {
		return "", Minted{}, err
	}
	toolsets, err := authz.NormalToolsets(r.Toolsets)
	if err != nil {
		return "", Minted{}, fmt.Errorf("authn: mint: %w", err)
	}
	if r.TTL == 0 {
		r.TTL = DefaultTTL
	}
	jti, err := newTokenID()
	if err != nil {
		return "", Minted{}, err
	}
	now := time.Now().Truncate(time.Second)
	exp := now.Add(r.TTL).Truncate(time.Second) // as the claim has it, so records match
	aud := is.cfg.Audience
	if r.Admin {
		aud = AdminAudience(is.cfg.Issuer)
	}
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    is.cfg.Issuer,
			Subject:   strconv.Itoa(r.Member),
			Audience:  jwt.ClaimStrings{aud},
			ExpiresAt: jwt.NewNumericDate(exp),
			NotBefore: jwt.NewNumericDate(now),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        jti,
		},
		Tenant:   r.Tenant,
		Scope:    strings.Join(scopes, " "),
		Toolsets: toolsets,
	}
	key, err := is.key()
	if err != nil {
		return "", Minted{}, err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	tok.Header["kid"] = key.ID
	signed, err := tok.SignedString(key.Private)
	if err != nil {
		return "", Minted{}, fmt.Errorf("authn: sign token: %w", err)
	}
	return signed, Minted{ID: jti, ExpiresAt: exp, Toolsets: toolsets, Issuer: is.cfg.Issuer, KeyID: key.ID}, nil
}

// key is the key to sign the next token with.
func (is *Issuer) key() (*Key, error) {
	if is.cfg.Current == nil {
		return is.cfg.Key, nil
	}
	k, err := is.cfg.Current()
	if err != nil {
		return nil, fmt.Errorf("authn: no signing key: %w", err)
	}
	if !k.valid() {
		return nil, errors.New("authn: no signing key")
	}
	return k, nil
}

// checkMint validates r and returns its scopes without duplicates, weakest
// first, so equal grants give equal scope claims.
func checkMint(r MintRequest) ([]string, error) {
	switch {
	case r.Tenant == "":
		return nil, errors.New("authn: mint: no tenant")
	case r.Member <= 0:
		return nil, fmt.Errorf("authn: mint: member must be positive, got %d", r.Member)
	case r.TTL < 0:
		return nil, fmt.Errorf("authn: mint: negative TTL %v", r.TTL)
	case r.Admin && (len(r.Scopes) > 0 || len(r.Toolsets) > 0):
		return nil, errors.New("authn: mint: an admin token has no scopes or toolsets")
	case r.Admin:
		return nil, nil
	case len(r.Scopes) == 0:
		return nil, errors.New("authn: mint: no scopes")
	}
	for _, s := range r.Scopes {
		if !authz.Valid(s) {
			return nil, fmt.Errorf("authn: mint: unknown scope %q (known: %s)", s, strings.Join(authz.AllScopes, ", "))
		}
	}
	var out []string
	for _, s := range authz.AllScopes {
		if slices.Contains(r.Scopes, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// newTokenID returns 130 random bits: unguessable, so a token id
// can be shown in lists without helping anyone forge or revoke by guessing.
func newTokenID() (string, error) {
	// rand.Text: 26 base32 letters and digits (130 bits); unlike base64url
	// it never starts with "-", which command lines would take for a flag.
	return rand.Text(), nil
}

package authn

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// maxTokenLen bounds the work a hostile client can ask of the parser.
const maxTokenLen = 8 << 10

// DefaultLeeway is the clock skew allowed when VerifierConfig names none.
const DefaultLeeway = 30 * time.Second

// errUnknownKey is returned by the key function for a kid not configured.
var errUnknownKey = errors.New("unknown signing key")

// VerifierConfig configures a Verifier.
type VerifierConfig struct {
	Keys map[string]ed25519.PublicKey // kid → public key, fixed
	// KeySource, when set, is asked first for the key of a kid, on every
	// token, so keys can be rotated under a running Verifier; Keys are
	// looked up when it knows none. It must be safe for concurrent use.
	KeySource func(kid string) (ed25519.PublicKey, bool)
	Issuer    string           // the required "iss": this server's public URL
	Audience  string           // the required "aud": this server's MCP endpoint URL, or AdminAudience(Issuer)
	Leeway    time.Duration    // clock skew allowed for exp, nbf, iat; 0 means DefaultLeeway
	Now       func() time.Time // optional; time.Now when nil
	// Revoked, when set, refuses a token that verifies but was revoked:
	// by its id, or as one of its member's tokens issued before a time.
	Revoked func(c identity.Caller, issuedAt time.Time) bool
	// MaxLifetime, when positive, refuses a token meant to live longer
	// (exp - iat), such as one minted before lifetimes were bounded: a
	// long-lived token would keep a retired signing key verifying.
	MaxLifetime time.Duration
}

// admin reports whether c verifies admin tokens rather than MCP tokens.
func (c VerifierConfig) admin() bool { return c.Audience == AdminAudience(c.Issuer) }

// Validate reports whether c can verify tokens.
func (c VerifierConfig) Validate() error {
	switch {
	case len(c.Keys) == 0 && c.KeySource == nil:
		return errors.New("authn: verifier needs at least one key or a key source")
	case c.Issuer == "":
		return errors.New("authn: verifier needs an issuer name")
	case c.Audience == "":
		return errors.New("authn: verifier needs an audience")
	case c.Leeway < 0:
		return fmt.Errorf("authn: negative leeway %v", c.Leeway)
	case c.MaxLifetime < 0:
		return fmt.Errorf("authn: negative maximum lifetime %v", c.MaxLifetime)
	}
	for kid, k := range c.Keys {
		if kid == "" || len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("authn: bad verification key %q", kid)
		}
	}
	return nil
}

// Verifier checks tokens and tells who they name.
type Verifier struct {
	keys     map[string]ed25519.PublicKey
	source   func(string) (ed25519.PublicKey, bool)
	parser   *jwt.Parser
	revoked  func(identity.Caller, time.Time) bool
	leeway   time.Duration
	now      func() time.Time
	issuer   string        // the public URL, to tell a token of another one
	audience string        // the audience required
	kind     string        // identity.KindMCP or identity.KindAdmin: what it verifies
	maxLife  time.Duration // 0: no bound
	// verified remembers the tokens that verified, so that a client's
	// next call costs a lookup instead of a signature check (most of the
	// work of verifying). What only time or state can change is checked
	// again on every use: the validity window, the signing key still
	// being served, and revocation.
	verified *lru.Cache[string, verifiedToken]
}

// verifiedCacheSize bounds the tokens remembered: more than the clients
// one front door serves at once.
const verifiedCacheSize = 10_000

// verifiedToken is what a token's signature check established.
type verifiedToken struct {
	caller     identity.Caller
	issued     time.Time // zero when the token has no iat
	kid        string
	key        ed25519.PublicKey
	validFrom  time.Time // nbf and iat, less the leeway
	validUntil time.Time // exp, plus the leeway
}

// NewVerifier returns a Verifier for cfg.
func NewVerifier(cfg VerifierConfig) (*Verifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), // refuses none, HS*, RS*, ES*
		jwt.WithAudience(cfg.Audience),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
	}
	if cfg.Now != nil {
		opts = append(opts, jwt.WithTimeFunc(cfg.Now))
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	verified, err := lru.New[string, verifiedToken](verifiedCacheSize)
	if err != nil {
		return nil, fmt.Errorf("authn: verified tokens: %w", err)
	}
	kind := identity.KindMCP
	if cfg.admin() {
		kind = identity.KindAdmin
	}
	return &Verifier{
		keys: maps.Clone(cfg.Keys), source: cfg.KeySource, parser: jwt.NewParser(opts...), revoked: cfg.Revoked,
		leeway: cfg.Leeway, now: now, verified: verified,
		issuer: strings.TrimSuffix(cfg.Issuer, "/"), audience: cfg.Audience, kind: kind, maxLife: cfg.MaxLifetime,
	}, nil
}

// Verify checks raw (without "Bearer ") and returns the caller it names.
// ctx is for checks that may need I/O later, such as revocation.
func (v *Verifier) Verify(ctx context.Context, raw string) (identity.Caller, error) {
	if raw == "" {
		return identity.Caller{}, refuse(ReasonMalformed, "no token")
	}
	if len(raw) > maxTokenLen {
		return identity.Caller{}, refuse(ReasonMalformed, "the token is too long to be one of ours")
	}
	if t, ok := v.verified.Get(raw); ok {
		if now := v.now(); !now.Before(t.validFrom) && !now.After(t.validUntil) && v.stillServed(t.kid, t.key) {
			return v.unlessRevoked(t.caller, t.issued)
		}
		v.verified.Remove(raw) // verified again below, to say why it fails
	}
	var c claims
	var key ed25519.PublicKey // the key the signature verified with
	tok, err := v.parser.ParseWithClaims(raw, &c, func(t *jwt.Token) (any, error) {
		k, err := v.keyFor(t)
		key, _ = k.(ed25519.PublicKey)
		return k, err
	})
	if err != nil {
		return identity.Caller{}, v.refusal(err, &c)
	}
	caller, err := v.callerOf(&c)
	if err != nil {
		return identity.Caller{}, err
	}
	t := verifiedToken{caller: caller, key: key, validUntil: c.ExpiresAt.Add(v.leeway)}
	t.kid, _ = tok.Header["kid"].(string)
	if c.IssuedAt != nil {
		t.issued = c.IssuedAt.Time // unknown: a member-wide revocation refuses it
		t.validFrom = c.IssuedAt.Add(-v.leeway)
	}
	if c.NotBefore != nil && c.NotBefore.Add(-v.leeway).After(t.validFrom) {
		t.validFrom = c.NotBefore.Add(-v.leeway)
	}
	v.verified.Add(raw, t)
	return v.unlessRevoked(caller, t.issued)
}

// unlessRevoked is caller, or a refusal when its token was revoked.
func (v *Verifier) unlessRevoked(caller identity.Caller, issued time.Time) (identity.Caller, error) {
	if v.revoked != nil && v.revoked(caller, issued) {
		return identity.Caller{}, refuse(ReasonRevoked, "the token was revoked: ask an admin for a new one")
	}
	return caller, nil
}

// stillServed reports whether kid still names key: a key rotated out of
// service stops verifying the tokens it signed, remembered or not.
func (v *Verifier) stillServed(kid string, key ed25519.PublicKey) bool {
	k, ok := v.lookup(kid)
	return ok && k.Equal(key)
}

// keyFor finds the public key named by the token's kid header. The
// algorithm was already checked by the parser before it calls keyFor.
func (v *Verifier) keyFor(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	if k, ok := v.lookup(kid); ok {
		return k, nil
	}
	return nil, errUnknownKey
}

// lookup is the public key kid names: the key source's first, then the
// fixed keys.
func (v *Verifier) lookup(kid string) (ed25519.PublicKey, bool) {
	if v.source != nil {
		if k, ok := v.source(kid); ok && len(k) == ed25519.PublicKeySize {
			return k, true
		}
	}
	k, ok := v.keys[kid]
	return k, ok
}

// callerOf checks the Taskwire claims the JWT library knows nothing about,
// and the token's lifetime.
func (v *Verifier) callerOf(c *claims) (identity.Caller, error) {
	member, err := strconv.Atoi(c.Subject)
	if err != nil || member <= 0 || strconv.Itoa(member) != c.Subject {
		return identity.Caller{}, refuse(ReasonClaims, "the token's subject is not a member id")
	}
	if c.Tenant == "" {
		return identity.Caller{}, refuse(ReasonClaims, "the token names no tenant")
	}
	if c.ID == "" {
		return identity.Caller{}, refuse(ReasonClaims, "the token has no id (jti)")
	}
	if err := v.checkLifetime(c); err != nil {
		return identity.Caller{}, err
	}
	scopes := strings.Fields(c.Scope)
	if len(scopes) == 0 && v.kind == identity.KindMCP {
		return identity.Caller{}, refuse(ReasonClaims, "the token has no scopes")
	}
	for _, s := range scopes {
		if !authz.Valid(s) {
			return identity.Caller{}, refuse(ReasonClaims, "the token has an unknown scope")
		}
	}
	for _, ts := range c.Toolsets {
		if !authz.ValidToolset(ts) {
			// Fail closed: a toolset this server does not know may be a
			// limit it cannot enforce.
			return identity.Caller{}, refuse(ReasonClaims, "the token has an unknown toolset")
		}
	}
	toolsets, _ := authz.NormalToolsets(c.Toolsets)
	return identity.Caller{
		Tenant: c.Tenant, Member: member, Scopes: scopes, TokenID: c.ID, Toolsets: toolsets,
		Expires: c.ExpiresAt.Time, Kind: v.kind,
	}, nil
}

// checkLifetime refuses a token meant to live longer than the maximum.
func (v *Verifier) checkLifetime(c *claims) error {
	if v.maxLife <= 0 {
		return nil
	}
	if c.IssuedAt == nil {
		return refuse(ReasonClaims, "the token has no issue time (iat), so its lifetime is unknown: ask for a new one")
	}
	if life := c.ExpiresAt.Sub(c.IssuedAt.Time); life > v.maxLife {
		return refuse(ReasonLifetime, "the token was made to live %s, longer than this server's maximum token lifetime of %s: ask for a new one",
			FormatTTL(life.Truncate(time.Hour)), FormatTTL(v.maxLife))
	}
	return nil
}

package authn

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

const (
	testIssuer   = "https://taskwire.test"
	testAudience = "https://taskwire.test/api/mcp"
)

func newTestKey(t *testing.T) *Key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return newKey(priv)
}

func newTestIssuer(t *testing.T, k *Key) *Issuer {
	t.Helper()
	is, err := NewIssuer(IssuerConfig{Key: k, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		t.Fatal(err)
	}
	return is
}

// newTestVerifier returns a verifier for k; edit changes its config first.
func newTestVerifier(t *testing.T, k *Key, edit func(*VerifierConfig)) *Verifier {
	t.Helper()
	cfg := VerifierConfig{
		Keys:     map[string]ed25519.PublicKey{k.ID: k.Public()},
		Issuer:   testIssuer,
		Audience: testAudience,
	}
	if edit != nil {
		edit(&cfg)
	}
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mint(t *testing.T, is *Issuer, r MintRequest) string {
	t.Helper()
	tok, _, err := is.Mint(r)
	if err != nil {
		t.Fatalf("Mint(%+v): %v", r, err)
	}
	return tok
}

var acme = MintRequest{Tenant: "acme", Member: 7, Scopes: []string{"write", "read"}}

func TestRoundTrip(t *testing.T) {
	k := newTestKey(t)
	before := time.Now()
	tok, minted, err := newTestIssuer(t, k).Mint(acme)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newTestVerifier(t, k, nil).Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("Verify = %v, want nil", err)
	}
	if c.Tenant != "acme" || c.Member != 7 || c.TokenID != minted.ID {
		t.Errorf("Verify = %+v, want tenant acme, member 7, token id %q", c, minted.ID)
	}
	if want := []string{"read", "write"}; !slices.Equal(c.Scopes, want) {
		t.Errorf("scopes = %q, want %q", c.Scopes, want)
	}
	if d := minted.ExpiresAt.Sub(before); d < DefaultTTL-2*time.Second || d > DefaultTTL+time.Second {
		t.Errorf("ExpiresAt - now = %v, want about %v", d, DefaultTTL)
	}
	if len(minted.ID) < 20 {
		t.Errorf("jti = %q, want at least 20 characters of randomness", minted.ID)
	}
}

func TestHeader(t *testing.T) {
	k := newTestKey(t)
	tok := mint(t, newTestIssuer(t, k), acme)
	var h map[string]string
	decodeSegment(t, strings.Split(tok, ".")[0], &h)
	want := map[string]string{"alg": "EdDSA", "kid": k.ID, "typ": "JWT"}
	if !maps.Equal(h, want) {
		t.Errorf("header = %v, want %v", h, want)
	}
}

func TestMintRefuses(t *testing.T) {
	is := newTestIssuer(t, newTestKey(t))
	for _, r := range []MintRequest{
		{Tenant: "acme", Member: 7},
		{Tenant: "acme", Member: 7, Scopes: []string{"admin"}},
		{Tenant: "acme", Member: 7, Scopes: []string{"read", ""}},
		{Tenant: "", Member: 7, Scopes: []string{"read"}},
		{Tenant: "acme", Member: 0, Scopes: []string{"read"}},
		{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TTL: -time.Hour},
	} {
		if _, _, err := is.Mint(r); err == nil {
			t.Errorf("Mint(%+v) = nil error, want an error", r)
		}
	}
}

// refusalCase is a token Verify must refuse, with the reason it must give.
type refusalCase struct {
	name   string
	token  string
	reason string
	edit   func(*VerifierConfig)
}

func TestVerifyRefuses(t *testing.T) {
	k := newTestKey(t)
	is := newTestIssuer(t, k)
	good := mint(t, is, acme)
	sig := "the token's signature is invalid, or its algorithm is not allowed"
	unknownKey := "the token was signed with a key this server does not know, or no longer accepts (a retired key whose tokens have expired): ask for a new token"
	shortLived := mint(t, is, withTTL(acme, time.Minute))
	expiry := time.Unix(claimsOf(t, shortLived)["exp"].(int64), 0).UTC().Format(time.RFC3339)
	cases := []refusalCase{
		{name: "expired", token: shortLived, reason: "the token expired at " + expiry + ": ask for a new one",
			edit: func(c *VerifierConfig) { c.Now = func() time.Time { return time.Now().Add(2 * time.Minute) } }},
		{name: "not yet valid", token: good, reason: "the token is not valid yet (it was issued in the future): check the clocks of this server and of the one that issued it",
			edit: func(c *VerifierConfig) { c.Now = func() time.Time { return time.Now().Add(-time.Hour) } }},
		{name: "another server URL", token: good,
			reason: "the token was issued for another server URL, https://taskwire.test, and this server is https://elsewhere.test: use the token with https://taskwire.test, or start this server with --public-url https://taskwire.test",
			edit: func(c *VerifierConfig) {
				c.Issuer, c.Audience = "https://elsewhere.test", "https://elsewhere.test/api/mcp"
			}},
		{name: "another audience", token: signEd(t, k, k.ID, with(validClaims(), "aud", "https://other.test/x")),
			reason: "the token was issued for another server (audience https://other.test/x), not for https://taskwire.test/api/mcp"},
		{name: "admin token on MCP", token: mint(t, is, MintRequest{Tenant: "acme", Member: 7, Admin: true}),
			reason: "this is an admin token, for the admin API only: use an MCP token here"},
		{name: "MCP token on the admin API", token: good, reason: "this is an MCP token, which cannot administer",
			edit: func(c *VerifierConfig) { c.Audience = AdminAudience(testIssuer) }},
		{name: "wrong issuer", token: good, reason: "the token was issued by another server, https://taskwire.test, not by https://elsewhere.test",
			edit: func(c *VerifierConfig) { c.Issuer = "https://elsewhere.test" }},
		{name: "longer than the maximum lifetime", token: mint(t, is, withTTL(acme, 876000*time.Hour)),
			reason: "the token was made to live 876000h, longer than this server's maximum token lifetime of 2160h: ask for a new one",
			edit:   func(c *VerifierConfig) { c.MaxLifetime = 2160 * time.Hour }},
		{name: "no iat with a maximum lifetime", token: signEd(t, k, k.ID, without(validClaims(), "iat")),
			reason: "the token has no issue time (iat), so its lifetime is unknown: ask for a new one",
			edit:   func(c *VerifierConfig) { c.MaxLifetime = 2160 * time.Hour }},
		{name: "unknown kid", token: mint(t, newTestIssuer(t, newTestKey(t)), acme), reason: unknownKey},
		{name: "no kid", token: signEd(t, k, "", validClaims()), reason: unknownKey},
		{name: "alg none", token: signNone(t, k.ID), reason: sig},
		{name: "HS256 with public key", token: signHS256(t, k), reason: sig},
		{name: "RS256", token: signRS256(t, k.ID), reason: sig},
		{name: "tampered payload", token: tamper(t, good), reason: sig},
		{name: "missing exp", token: signEd(t, k, k.ID, without(validClaims(), "exp")), reason: "the token lacks a required claim (exp, aud or iss)"},
		{name: "missing aud", token: signEd(t, k, k.ID, without(validClaims(), "aud")), reason: "the token lacks a required claim (exp, aud or iss)"},
		{name: "unknown scope", token: signEd(t, k, k.ID, with(validClaims(), "scope", "read admin")), reason: "the token has an unknown scope"},
		{name: "no scope", token: signEd(t, k, k.ID, with(validClaims(), "scope", " ")), reason: "the token has no scopes"},
		{name: "sub not a number", token: signEd(t, k, k.ID, with(validClaims(), "sub", "alice")), reason: "the token's subject is not a member id"},
		{name: "sub zero", token: signEd(t, k, k.ID, with(validClaims(), "sub", "0")), reason: "the token's subject is not a member id"},
		{name: "sub not canonical", token: signEd(t, k, k.ID, with(validClaims(), "sub", "+7")), reason: "the token's subject is not a member id"},
		{name: "no tenant", token: signEd(t, k, k.ID, without(validClaims(), "tenant")), reason: "the token names no tenant"},
		{name: "no jti", token: signEd(t, k, k.ID, without(validClaims(), "jti")), reason: "the token has no id (jti)"},
		{name: "garbage", token: "not.a.jwt", reason: malformed},
		{name: "empty", token: "", reason: "no token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRefusal(t, k, tc) })
	}
}

// malformed is the refusal of what is no JWT.
const malformed = "the token is malformed (not a JWT): send the whole token, as it was shown"

// claimsOf decodes the claims of tok without verifying it.
func claimsOf(t *testing.T, tok string) map[string]any {
	t.Helper()
	var c map[string]any
	decodeSegment(t, strings.Split(tok, ".")[1], &c)
	for k, v := range c {
		if f, ok := v.(float64); ok {
			c[k] = int64(f)
		}
	}
	return c
}

func checkRefusal(t *testing.T, k *Key, tc refusalCase) {
	t.Helper()
	_, err := newTestVerifier(t, k, tc.edit).Verify(context.Background(), tc.token)
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("Verify = %v, want an error wrapping ErrInvalidToken", err)
	}
	if err.Error() != tc.reason {
		t.Errorf("Verify error = %q, want %q", err, tc.reason)
	}
	if tc.token != "" && strings.Contains(err.Error(), tc.token) {
		t.Errorf("Verify error echoes the token")
	}
}

func TestVerifyLeeway(t *testing.T) {
	k := newTestKey(t)
	tok := mint(t, newTestIssuer(t, k), withTTL(acme, time.Minute))
	later := func() time.Time { return time.Now().Add(time.Minute + 10*time.Second) }
	v := newTestVerifier(t, k, func(c *VerifierConfig) { c.Now = later })
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Errorf("Verify 10s after exp with 30s leeway = %v, want nil", err)
	}
}

func TestNewVerifierRefusesBadConfig(t *testing.T) {
	k := newTestKey(t)
	for name, cfg := range map[string]VerifierConfig{
		"no keys":     {Issuer: testIssuer, Audience: testAudience},
		"short key":   {Keys: map[string]ed25519.PublicKey{"x": {1, 2}}, Issuer: testIssuer, Audience: testAudience},
		"no issuer":   {Keys: map[string]ed25519.PublicKey{k.ID: k.Public()}, Audience: testAudience},
		"no audience": {Keys: map[string]ed25519.PublicKey{k.ID: k.Public()}, Issuer: testIssuer},
	} {
		if _, err := NewVerifier(cfg); err == nil {
			t.Errorf("NewVerifier(%s) = nil error, want an error", name)
		}
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "signing.pem")
	k1, created, err := LoadOrCreateKey(path)
	if err != nil || !created {
		t.Fatalf("LoadOrCreateKey (first) = created %v, %v; want created, nil", created, err)
	}
	checkMode(t, path, 0o600)
	checkMode(t, filepath.Dir(path), 0o700)
	k2, created, err := LoadOrCreateKey(path)
	if err != nil || created {
		t.Fatalf("LoadOrCreateKey (second) = created %v, %v; want not created, nil", created, err)
	}
	if k1.ID != k2.ID || !k1.Private.Equal(k2.Private) {
		t.Errorf("reloaded key id = %q, want %q (same key)", k2.ID, k1.ID)
	}
	if k1.ID != KeyID(k1.Public()) {
		t.Errorf("ID = %q, want KeyID(public) = %q", k1.ID, KeyID(k1.Public()))
	}
	data, _ := os.ReadFile(path)
	k3, err := ParseKeyPEM(data)
	if err != nil || k3.ID != k1.ID {
		t.Errorf("ParseKeyPEM(file) = %v, %v; want id %q", k3, err, k1.ID)
	}
}

func TestLoadOrCreateKeyRefusesOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "signing.pem")
	if _, _, err := LoadOrCreateKey(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateKey(path); err == nil {
		t.Errorf("LoadOrCreateKey(mode 0644) = nil error, want a refusal")
	}
}

func TestParseKeyPEMRefusesOtherKeys(t *testing.T) {
	for _, data := range []string{"", "not pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if _, err := ParseKeyPEM([]byte(data)); err == nil {
			t.Errorf("ParseKeyPEM(%q) = nil error, want an error", data)
		}
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("mode of %s = %04o, want %04o", path, got, want)
	}
}

// --- hand-made tokens ---

func withTTL(r MintRequest, ttl time.Duration) MintRequest {
	r.TTL = ttl
	return r
}

func validClaims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": testIssuer, "aud": testAudience, "sub": "7", "tenant": "acme",
		"scope": "read", "jti": "abc123", "iat": now.Unix(), "nbf": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
}

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	c[k] = v
	return c
}

func without(c jwt.MapClaims, k string) jwt.MapClaims {
	delete(c, k)
	return c
}

func signEd(t *testing.T, k *Key, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(k.Private)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func signNone(t *testing.T, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, validClaims())
	tok.Header["kid"] = kid
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// signHS256 is the classic confusion attack: an HMAC keyed with the bytes
// of the public key, hoping the verifier hands its public key to HMAC.
func signHS256(t *testing.T, k *Key) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, validClaims())
	tok.Header["kid"] = k.ID
	s, err := tok.SignedString([]byte(k.Public()))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func signRS256(t *testing.T, kid string) string {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims())
	tok.Header["kid"] = kid
	s, err := tok.SignedString(rk)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tamper rewrites the tenant in a signed token, keeping the signature.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	var c map[string]any
	decodeSegment(t, parts[1], &c)
	c["tenant"] = "globex"
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

func decodeSegment(t *testing.T, seg string, v any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestDerive(t *testing.T) {
	k, _, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := k.Derive("request-state v1"), k.Derive("session v1")
	if len(a) != 32 || bytes.Equal(a, b) {
		t.Errorf("Derive = %x, %x; want 32 bytes, different per purpose", a, b)
	}
	again, _, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(again.Derive("request-state v1"), a) {
		t.Error("two different keys derive the same secret")
	}
	if !bytes.Equal(k.Derive("request-state v1"), a) {
		t.Error("Derive is not deterministic")
	}
}

func TestVerifyRefusesRevoked(t *testing.T) {
	k := newTestKey(t)
	is := newTestIssuer(t, k)
	before := time.Now()
	kept, revoked := mint(t, is, acme), mint(t, is, acme)
	var seen []time.Time
	v := newTestVerifier(t, k, func(c *VerifierConfig) {
		c.Revoked = func(caller identity.Caller, issued time.Time) bool {
			seen = append(seen, issued)
			return caller.TokenID == tokenID(t, revoked)
		}
	})
	if _, err := v.Verify(context.Background(), kept); err != nil {
		t.Errorf("a token not revoked: %v", err)
	}
	if _, err := v.Verify(context.Background(), revoked); err == nil || !strings.Contains(err.Error(), "revoked") || !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a revoked token: err = %v, want an invalid-token error saying it was revoked", err)
	}
	for _, at := range seen {
		if at.Before(before.Truncate(time.Second)) || at.After(time.Now()) {
			t.Errorf("the revocation check saw issued-at %v, want the token's iat", at)
		}
	}
}

// tokenID reads the jti of tok without verifying it.
func tokenID(t *testing.T, tok string) string {
	t.Helper()
	var c claims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// TestAdminTokenRoundTrip: an admin token carries no scopes, names the
// admin API as its audience, and verifies only where admin tokens are
// taken; both kinds tell their expiry.
func TestAdminTokenRoundTrip(t *testing.T) {
	k := newTestKey(t)
	tok, minted, err := newTestIssuer(t, k).Mint(MintRequest{Tenant: "acme", Member: 7, Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	claims := claimsOf(t, tok)
	if fmt.Sprint(claims["aud"]) != "[https://taskwire.test/admin]" || claims["scope"] != nil || claims["toolsets"] != nil {
		t.Errorf("admin token claims = %v, want aud https://taskwire.test/admin and no scope or toolsets", claims)
	}
	admin := newTestVerifier(t, k, func(c *VerifierConfig) { c.Audience = AdminAudience(testIssuer) })
	c, err := admin.Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("admin Verify = %v", err)
	}
	if !c.IsAdmin() || len(c.Scopes) != 0 || c.TokenID != minted.ID || !c.Expires.Equal(minted.ExpiresAt) {
		t.Errorf("admin Verify = %+v, want an admin caller with no scopes, token %s, expiring %v", c, minted.ID, minted.ExpiresAt)
	}
	if _, _, err := newTestIssuer(t, k).Mint(MintRequest{Tenant: "acme", Member: 7, Admin: true, Scopes: []string{"read"}}); err == nil {
		t.Error("Mint(admin with scopes) = nil error, want an error")
	}
	mcpTok, mcpMinted, _ := newTestIssuer(t, k).Mint(acme)
	c, err = newTestVerifier(t, k, nil).Verify(context.Background(), mcpTok)
	if err != nil || c.Kind != identity.KindMCP || !c.Expires.Equal(mcpMinted.ExpiresAt) {
		t.Errorf("MCP Verify = %+v, %v; want an MCP caller expiring %v", c, err, mcpMinted.ExpiresAt)
	}
}

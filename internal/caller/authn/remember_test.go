package authn

import (
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/caller/identity"
)

// A token that verified once is remembered, but what time or state can
// change is checked again on every use: it expires on time, a revocation
// refuses it at once, and a key taken out of service stops it.
func TestRememberedTokens(t *testing.T) {
	k := newTestKey(t)
	is := newTestIssuer(t, k)
	tok := mint(t, is, withTTL(acme, time.Minute))
	var clock atomic.Int64 // offset from now
	var revoked atomic.Bool
	keys := map[string]ed25519.PublicKey{k.ID: k.Public()}
	var served atomic.Pointer[map[string]ed25519.PublicKey]
	served.Store(&keys)
	v := newTestVerifier(t, k, func(c *VerifierConfig) {
		c.Keys = nil
		c.KeySource = func(kid string) (ed25519.PublicKey, bool) { pk, ok := (*served.Load())[kid]; return pk, ok }
		c.Now = func() time.Time { return time.Now().Add(time.Duration(clock.Load())) }
		c.Revoked = func(identity.Caller, time.Time) bool { return revoked.Load() }
	})
	verify := func() error { _, err := v.Verify(context.Background(), tok); return err }
	refused := func(what, reason string) {
		t.Helper()
		if err := verify(); !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: Verify = %v, want refused: %q", what, err, reason)
		}
	}
	for i := range 3 {
		if err := verify(); err != nil {
			t.Fatalf("call %d: Verify = %v, want accepted", i, err)
		}
	}

	revoked.Store(true)
	refused("revoked after it was remembered", "revoked")
	revoked.Store(false)
	if err := verify(); err != nil {
		t.Fatalf("revocation lifted: Verify = %v, want accepted", err)
	}

	clock.Store(int64(time.Minute + DefaultLeeway + time.Second))
	refused("past exp and the leeway", "expired")
	clock.Store(0)
	if err := verify(); err != nil {
		t.Fatalf("clock back: Verify = %v, want accepted", err)
	}

	served.Store(&map[string]ed25519.PublicKey{})
	refused("its key taken out of service", "a key this server does not know")
	other := newTestKey(t)
	served.Store(&map[string]ed25519.PublicKey{k.ID: other.Public()})
	refused("its kid now naming another key", "signature")
	served.Store(&keys)
	if err := verify(); err != nil {
		t.Fatalf("key back: Verify = %v, want accepted", err)
	}
	if err := func() error { _, err := v.Verify(context.Background(), tamper(t, tok)); return err }(); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("the remembered token with a changed signature: Verify = %v, want refused", err)
	}
}

// BenchmarkVerify is the cost of a client's repeated calls with one token.
func BenchmarkVerify(b *testing.B) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	k := newKey(priv)
	is, err := NewIssuer(IssuerConfig{Key: k, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		b.Fatal(err)
	}
	tok, _, err := is.Mint(acme)
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewVerifier(VerifierConfig{Keys: map[string]ed25519.PublicKey{k.ID: k.Public()}, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
}

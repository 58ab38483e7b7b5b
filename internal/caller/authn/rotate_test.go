package authn

import (
	"context"
	"crypto/ed25519"
	"errors"
	"sync/atomic"
	"testing"
)

// An Issuer with Current signs each token with the key it returns, and a
// Verifier with KeySource takes keys swapped under it.
func TestKeysSwapUnderIssuerAndVerifier(t *testing.T) {
	a, b := newTestKey(t), newTestKey(t)
	var signing atomic.Pointer[Key]
	signing.Store(a)
	is, err := NewIssuer(IssuerConfig{Current: func() (*Key, error) { return signing.Load(), nil }, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		t.Fatal(err)
	}
	var known atomic.Pointer[map[string]ed25519.PublicKey]
	known.Store(&map[string]ed25519.PublicKey{a.ID: a.Public()})
	v, err := NewVerifier(VerifierConfig{
		KeySource: func(kid string) (ed25519.PublicKey, bool) { k, ok := (*known.Load())[kid]; return k, ok },
		Issuer:    testIssuer, Audience: testAudience,
	})
	if err != nil {
		t.Fatal(err)
	}
	req := MintRequest{Tenant: "acme", Member: 7, Scopes: []string{"read"}}
	byA := mint(t, is, req)
	signing.Store(b)
	byB := mint(t, is, req)
	if _, err := v.Verify(context.Background(), byB); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Verify(token of a key not yet known) = %v, want refused", err)
	}
	known.Store(&map[string]ed25519.PublicKey{a.ID: a.Public(), b.ID: b.Public()})
	for name, tok := range map[string]string{"old key": byA, "new key": byB} {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Errorf("Verify(token of the %s) = %v, want accepted", name, err)
		}
	}
	known.Store(&map[string]ed25519.PublicKey{b.ID: b.Public()})
	if _, err := v.Verify(context.Background(), byA); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Verify(token of a dropped key) = %v, want refused", err)
	}
}

func TestIssuerWithoutCurrentKey(t *testing.T) {
	is, err := NewIssuer(IssuerConfig{Current: func() (*Key, error) { return nil, errors.New("sealed") }, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := is.Mint(MintRequest{Tenant: "acme", Member: 7, Scopes: []string{"read"}}); err == nil {
		t.Error("Mint without a current key = nil error, want one")
	}
	if _, err := NewIssuer(IssuerConfig{Key: newTestKey(t), Current: func() (*Key, error) { return nil, nil }, Issuer: testIssuer, Audience: testAudience}); err == nil {
		t.Error("NewIssuer with Key and Current = nil error, want refused")
	}
}

// Package keys is the keyring of the token-signing keys, which live in the
// database so they can be rotated through the admin API with no restart.
//
// The configured key file is the deployment's root key: it never signs
// once the database has a key of its own. It derives the front doors'
// sealing keys (legacy session ids, request states) as before, and seals
// every signing key at rest (AES-256-GCM under Root.Derive("signing-key
// wrap v1")): the database alone holds no usable private key. On the first
// start the root key becomes the first signing key, with the same kid, so
// tokens signed before keep verifying.
//
// A Ring, on a worker, reads the keys from the database, signs with the
// current one (Current), rotates (Rotate) and serves the public keys to
// front doors (KeyService.ListPublicKeys). A Set, on a front door, holds
// the public keys it loads from a worker. Both reload when told on NATS
// (events.KeysSubject) and when NATS reconnects.
package keys

import (
	"crypto/ed25519"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
)

// Public is a key tokens may be signed with.
type Public struct {
	ID  string
	Key ed25519.PublicKey
	// VerifyUntil is when tokens the key signed stop verifying; zero for
	// the current key and for keys from configuration, which verify as
	// long as they are configured.
	VerifyUntil time.Time
}

// verifies reports whether p still verifies at now.
func (p Public) verifies(now time.Time) bool {
	return p.VerifyUntil.IsZero() || now.Before(p.VerifyUntil)
}

// Info describes a signing key for its operators: never private material.
type Info struct {
	ID          string
	Created     time.Time
	Retired     time.Time // zero while it signs
	VerifyUntil time.Time // zero while it signs
	Current     bool
}

// Rotation is what Rotate did.
type Rotation struct {
	Current  Info // the new key
	Previous Info // the key it retired; zero on a database with no key before
}

// FromConfig returns the public halves of keys from configuration (the
// retired signing keys), which verify with no time limit.
func FromConfig(keys []*authn.Key) []Public {
	out := make([]Public, 0, len(keys))
	for _, k := range keys {
		out = append(out, Public{ID: k.ID, Key: k.Public()})
	}
	return out
}

// lookup finds kid among keys still verifying at now.
func lookup(keys []Public, kid string, now time.Time) (ed25519.PublicKey, bool) {
	for _, k := range keys {
		if k.ID == kid && k.verifies(now) {
			return k.Key, true
		}
	}
	return nil, false
}

// live returns keys still verifying at now, without repeating a kid.
func live(keys []Public, now time.Time) []Public {
	out := make([]Public, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if k.verifies(now) && !seen[k.ID] {
			seen[k.ID] = true
			out = append(out, k)
		}
	}
	return out
}

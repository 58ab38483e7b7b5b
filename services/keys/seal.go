package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/taskwire/taskwire/internal/caller/authn"
)

// wrapPurpose names the key, derived from the root key, that seals the
// signing keys at rest.
const wrapPurpose = "signing-key wrap v1"

// aead returns AES-256-GCM under the wrapping key root derives.
func aead(root *authn.Key) (cipher.AEAD, error) {
	block, err := aes.NewCipher(root.Derive(wrapPurpose))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts k's seed under root, bound to k's kid (the additional
// data), so a sealed key copied to another row does not open.
func seal(root, k *authn.Key) ([]byte, error) {
	gcm, err := aead(root)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, k.Private.Seed(), []byte(k.ID)), nil
}

// errSealed is returned for a key sealed under a root key this process
// does not have.
var errSealed = errors.New("keys: the signing key is sealed under a root key this process does not have")

// unseal opens the key kid, sealed under root, and checks it is the key
// named kid.
func unseal(root *authn.Key, kid string, sealed []byte) (*authn.Key, error) {
	gcm, err := aead(root)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize() {
		return nil, fmt.Errorf("keys: sealed key %s is too short", kid)
	}
	nonce, box := sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():]
	seed, err := gcm.Open(nil, nonce, box, []byte(kid))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("keys: sealed key %s does not open under root key %s", kid, root.ID)
	}
	k := authn.NewKey(ed25519.NewKeyFromSeed(seed))
	if k.ID != kid {
		return nil, fmt.Errorf("keys: sealed key %s opens to key %s", kid, k.ID)
	}
	return k, nil
}

// Package authn mints and verifies the JWTs that name a caller: tenant,
// member and scopes, signed with Ed25519 (alg EdDSA).
package authn

import (
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Key is a signing key and the id (the JWT "kid") verifiers know it by.
type Key struct {
	Private ed25519.PrivateKey
	ID      string
}

// Public returns the public half of k, which verifiers need.
func (k *Key) Public() ed25519.PublicKey {
	return k.Private.Public().(ed25519.PublicKey)
}

// KeyID derives a key id from a public key, so the same key always has the
// same id and no id has to be stored beside the key: base64url of the first
// 16 bytes of the key's SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// valid reports whether k can sign.
func (k *Key) valid() bool {
	return k != nil && len(k.Private) == ed25519.PrivateKeySize && k.ID != ""
}

// NewKey returns the key of priv, with its derived id.
func NewKey(priv ed25519.PrivateKey) *Key { return newKey(priv) }

// GenerateKey returns a new random key.
func GenerateKey() (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("authn: generate key: %w", err)
	}
	return newKey(priv), nil
}

func newKey(priv ed25519.PrivateKey) *Key {
	return &Key{Private: priv, ID: KeyID(priv.Public().(ed25519.PublicKey))}
}

// ParseKeyPEM reads an Ed25519 private key stored as PKCS#8 PEM, the form
// LoadOrCreateKey writes, for keys that come from config or a secret.
func ParseKeyPEM(data []byte) (*Key, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, errors.New("authn: no PEM \"PRIVATE KEY\" block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("authn: parse PKCS#8 key: %w", err)
	}
	priv, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("authn: key is %T, want an Ed25519 key", parsed)
	}
	return newKey(priv), nil
}

func marshalKeyPEM(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("authn: marshal key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// LoadOrCreateKey returns the key stored at path, creating it first when
// there is none, so the embedded server has a stable key from its first start.
// created reports whether this call made the key. A new file has mode 0600 and
// a new parent directory 0700; an existing file that group or others may read
// is refused rather than trusted, as ssh does.
func LoadOrCreateKey(path string) (key *Key, created bool, err error) {
	key, err = loadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	if err := createKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, err
	} else if err == nil {
		created = true
	}
	key, err = loadKey(path)
	return key, created, err
}

// LoadKey reads the key at path, which must exist and be private to its
// owner: a key named in configuration is never created by mistake.
func LoadKey(path string) (*Key, error) { return loadKey(path) }

func loadKey(path string) (*Key, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if mode := info.Mode().Perm(); mode&0o077 != 0 {
		return nil, fmt.Errorf("authn: key file %s has mode %04o; make it private (chmod 600)", path, mode)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := ParseKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("authn: key file %s: %w", path, err)
	}
	return key, nil
}

// createKey writes a new key to a temporary file and links it into place,
// so a crash never leaves half a key behind and, when two processes race,
// one wins and the other gets fs.ErrExist.
func createKey(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("authn: create key directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("authn: generate key: %w", err)
	}
	data, err := marshalKeyPEM(priv)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".key-*") // mode 0600
	if err != nil {
		return fmt.Errorf("authn: write key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("authn: write key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("authn: write key: %w", err)
	}
	return os.Link(tmp.Name(), path)
}

// Derive returns a 32-byte secret for purpose, derived from the signing key
// with HKDF-SHA256. Every process holding the signing key derives the same
// secret, so replicas share e.g. the keys that seal request states without
// a second secret to distribute; rotating the signing key rotates them.
func (k *Key) Derive(purpose string) []byte {
	out, err := hkdf.Key(sha256.New, k.Private.Seed(), nil, "taskwire "+purpose, 32)
	if err != nil { // only for lengths HKDF cannot produce
		panic(err)
	}
	return out
}

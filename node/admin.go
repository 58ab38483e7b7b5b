package node

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/services/keys"
)

// The admin API's wiring on the front door, the keyring of the signing
// keys, and the secrets read from files.

// tokenChecks are what a front door checks a token against beyond
// its claims: the live revocations, and the keys that still verify.
type tokenChecks struct {
	revoked func(identity.Caller, time.Time) bool
	keys    *keys.Set
}

// newTokenVerifier is the verifier of the tokens whose audience is
// audience: the MCP endpoint's, or the admin API's (authn.AdminAudience),
// which take only their own kind. Both refuse revoked tokens, tokens of
// keys no longer served, and tokens meant to live longer than the
// maximum.
func newTokenVerifier(cfg FrontdoorConfig, audience string, checks tokenChecks) (*authn.Verifier, error) {
	return authn.NewVerifier(authn.VerifierConfig{
		KeySource:   checks.keys.Lookup,
		Revoked:     checks.revoked,
		Issuer:      cfg.PublicURL,
		Audience:    audience,
		MaxLifetime: cfg.MaxTokenTTL,
	})
}

// newAdminEdge returns the admin API's edge of a front door node: it takes
// the operator secret and admin tokens, never MCP tokens.
func newAdminEdge(cfg FrontdoorConfig, conn grpc.ClientConnInterface, checks tokenChecks, throttle *frontdoor.AuthThrottle) (*adminedge.Edge, error) {
	verifier, err := newTokenVerifier(cfg, authn.AdminAudience(cfg.PublicURL), checks)
	if err != nil {
		return nil, err
	}
	limiter, err := frontdoor.NewRateLimiter(cfg.AdminRateLimits)
	if err != nil {
		return nil, err
	}
	jwks := func() []adminedge.PublicKey {
		var out []adminedge.PublicKey
		for _, k := range checks.keys.Public() {
			out = append(out, adminedge.PublicKey{ID: k.ID, Key: k.Key})
		}
		return out
	}
	return adminedge.New(adminedge.Config{
		Conn: conn, Verifier: verifier, Operator: cfg.Operator, PublicKeys: jwks,
		RateLimiter: limiter, AuthThrottle: throttle,
		Logger: cfg.Log.With("component", "admin"),
	})
}

// Signing is how a deployment mints tokens: the keyring of the signing
// keys in the database, and the issuer that signs with its current key.
type Signing struct {
	Keys   *keys.Ring
	Issuer *authn.Issuer
}

// OpenSigning opens the keyring of the signing keys in db, sealed under
// root (and the retired root keys), adding root as the first signing key
// on a database with none, and the issuer of tokens for publicURL's MCP
// endpoint. With nc, a rotation is told to the deployment's other
// processes; without, nobody hears of one. A retired key verifies at
// most maxTTL past its retirement. The worker, serve and the token
// commands working on the database all mint through it.
func OpenSigning(ctx context.Context, db *ent.Client, nc *nats.Conn, root *authn.Key, retired []*authn.Key, maxTTL time.Duration, publicURL string, log *slog.Logger) (Signing, error) {
	var news keys.Notifier // a nil *events.Bus would be a non-nil Notifier
	if nc != nil {
		bus, err := events.New(nc)
		if err != nil {
			return Signing{}, err
		}
		news = bus
	}
	ring, err := keys.New(keys.Config{Client: db, Root: root, Retired: retired, MaxTTL: maxTTL, Events: news, Logger: log})
	if err != nil {
		return Signing{}, err
	}
	if err := ring.Init(ctx); err != nil {
		return Signing{}, fmt.Errorf("signing keys: %w", err)
	}
	issuer, err := authn.NewIssuer(authn.IssuerConfig{Current: ring.Current, Issuer: publicURL, Audience: endpoint(publicURL)})
	if err != nil {
		return Signing{}, err
	}
	return Signing{Keys: ring, Issuer: issuer}, nil
}

// endpoint is the URL of the MCP endpoint of the deployment at publicURL:
// the audience of its MCP tokens.
func endpoint(publicURL string) string { return publicURL + "/api/mcp" }

// LoadOperatorSecret reads the operator secret at path, creating it
// first when create and it is missing. created is the new secret, to be
// shown once; it is empty when the secret existed.
func LoadOperatorSecret(path string, create bool) (_ *adminedge.OperatorSecret, created string, err error) {
	secret, err := ReadSecretFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		if created, err = CreateSecretFile(path); errors.Is(err, fs.ErrExist) {
			created = "" // another process made it meanwhile
		}
		if err == nil || errors.Is(err, fs.ErrExist) {
			secret, err = ReadSecretFile(path)
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("operator secret: %w", err)
	}
	op, err := adminedge.NewOperatorSecret(secret)
	if err != nil {
		return nil, "", fmt.Errorf("operator secret %s: %w", path, err)
	}
	return op, created, nil
}

// ReadSecretFile reads a secret from a file private to its owner, trimmed
// of surrounding space (a trailing newline, as editors leave).
func ReadSecretFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if mode := info.Mode().Perm(); mode&0o077 != 0 {
		return "", fmt.Errorf("%s has mode %04o; make it private (chmod 600)", path, mode)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// CreateSecretFile writes a new random secret of 32 bytes to path, mode
// 0600, failing with fs.ErrExist if the file exists, and returns it.
func CreateSecretFile(path string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret := "twop_" + base64.RawURLEncoding.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", err
	}
	return secret, nil
}

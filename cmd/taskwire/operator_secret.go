package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/tokens"
)

// The admin API's wiring: the service on the worker, the edge on the
// front door, and the operator secret.

// adminRegister returns the registration of a worker node's admin
// service, over the worker's token store and event bus.
func adminRegister(cfg workerNodeConfig, store *tokens.Store, bus admin.Publisher) (func(grpc.ServiceRegistrar), error) {
	svc, err := admin.New(admin.Config{Client: cfg.DB, Tokens: store, Issuer: cfg.Issuer, Keys: cfg.Keys, Events: bus, Quota: cfg.Quota, Logger: cfg.Log})
	if err != nil {
		return nil, err
	}
	return svc.Register, nil
}

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
func newTokenVerifier(cfg frontdoorNodeConfig, audience string, checks tokenChecks) (*authn.Verifier, error) {
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
func newAdminEdge(cfg frontdoorNodeConfig, conn grpc.ClientConnInterface, checks tokenChecks, throttle *frontdoor.AuthThrottle) (*adminedge.Edge, error) {
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

// openKeyring opens the keyring of the signing keys in db, sealed under
// root (and the retired root keys), adding root as the first signing key
// on a database with none. events, when set, tells the others of a
// rotation. A retired key verifies at most maxTTL past its retirement.
func openKeyring(ctx context.Context, db *ent.Client, root *authn.Key, retired []*authn.Key, maxTTL time.Duration, events keys.Notifier, log *slog.Logger) (*keys.Ring, error) {
	ring, err := keys.New(keys.Config{Client: db, Root: root, Retired: retired, MaxTTL: maxTTL, Events: events, Logger: log})
	if err != nil {
		return nil, err
	}
	if err := ring.Init(ctx); err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	return ring, nil
}

// operatorSecretName is the operator secret's file in the data directory.
const operatorSecretName = "operator.secret"

// operatorSecretPath is where the operator secret is read: the file
// configured, which must exist, or the data directory's, created on the
// first start.
func (c *config) operatorSecretPath() (path string, create bool) {
	if c.OperatorSecretFile != "" {
		return c.OperatorSecretFile, false
	}
	return filepath.Join(c.DataDir, operatorSecretName), true
}

// loadOperatorSecret reads the operator secret of cfg, creating it first
// when it may. created is the new secret, to be shown once; it is empty
// when the secret existed.
func loadOperatorSecret(cfg *config) (_ *adminedge.OperatorSecret, created string, err error) {
	path, create := cfg.operatorSecretPath()
	secret, err := readSecretFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		if created, err = createSecretFile(path); errors.Is(err, fs.ErrExist) {
			created = "" // another process made it meanwhile
		}
		if err == nil || errors.Is(err, fs.ErrExist) {
			secret, err = readSecretFile(path)
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

// readSecretFile reads a secret from a file private to its owner, trimmed
// of surrounding space (a trailing newline, as editors leave).
func readSecretFile(path string) (string, error) {
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

// createSecretFile writes a new random secret of 32 bytes to path, mode
// 0600, failing with fs.ErrExist if the file exists, and returns it.
func createSecretFile(path string) (string, error) {
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

// printOperatorSecret shows a newly created operator secret, once.
func printOperatorSecret(out io.Writer, secret, path, url string) {
	if secret == "" {
		return
	}
	fmt.Fprintf(out, `
Platform operator secret, shown this once (also in %s, mode 0600).
It manages every tenant through the admin API, never through MCP; keep it secret.

  %s

  taskwire admin tenants list --url %s --operator-secret-file %s
`, path, secret, url, path)
}

// showOperatorSecret prints the operator secret after the welcome when
// this start created it, and forgets it.
func (s *system) showOperatorSecret(out io.Writer) {
	path, _ := s.cfg.operatorSecretPath()
	printOperatorSecret(out, s.newSecret, path, s.cfg.PublicURL)
	s.newSecret = ""
}

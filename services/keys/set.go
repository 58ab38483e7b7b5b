package keys

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// Loader returns the public keys that still verify, the current one
// first, as Ring.Public does.
type Loader func(ctx context.Context) ([]Public, error)

// SetConfig configures a Set.
type SetConfig struct {
	// Load returns the keys: FromWorker(conn) in a front door. Required.
	Load Loader
	// Static are keys from configuration (--retired-signing-keys), added
	// to those loaded.
	Static []Public
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // required
}

// Set is a front door's copy of the public keys, which it verifies tokens
// and serves the JWKS with: loaded at Start, again on every nudge and NATS
// reconnect. A key past its VerifyUntil is dropped at once, with no
// reload. It is safe for concurrent use.
type Set struct {
	cfg   SetConfig
	clock func() time.Time
	log   *slog.Logger

	mu   sync.RWMutex
	keys []Public
}

// NewSet returns a Set holding cfg.Static only; Start loads the rest.
func NewSet(cfg SetConfig) (*Set, error) {
	switch {
	case cfg.Load == nil:
		return nil, errors.New("keys: SetConfig.Load is nil")
	case cfg.Logger == nil:
		return nil, errors.New("keys: SetConfig.Logger is required")
	}
	s := &Set{cfg: cfg, clock: cfg.Now, log: cfg.Logger, keys: cfg.Static}
	if s.clock == nil {
		s.clock = time.Now
	}
	return s, nil
}

// Load replaces the loaded keys with what the loader returns.
func (s *Set) Load(ctx context.Context) error {
	loaded, err := s.cfg.Load(ctx)
	if err != nil {
		return err
	}
	keys := append(loaded, s.cfg.Static...)
	s.mu.Lock()
	s.keys = keys
	s.mu.Unlock()
	return nil
}

// Start subscribes to key changes on nc, then loads the keys (in that
// order, so no rotation meanwhile is missed), and reloads them on each
// nudge and reconnect. It returns an error if the first load fails; stop
// ends the reloads. With a nil nc the keys are loaded once.
func (s *Set) Start(ctx context.Context, nc *nats.Conn) (stop func(), err error) {
	stop = func() {}
	if nc != nil {
		if stop, err = followKeys(nc, s.Load, s.log); err != nil {
			return nil, err
		}
	}
	if err := s.Load(ctx); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// Lookup returns the public key of kid if it still verifies, for
// authn.VerifierConfig.KeySource.
func (s *Set) Lookup(kid string) (ed25519.PublicKey, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return lookup(s.keys, kid, s.clock())
}

// Public returns the keys that still verify, the current one first, for
// the JWKS.
func (s *Set) Public() []Public {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return live(s.keys, s.clock())
}

// FromWorker is a Loader for a front door without a database: it asks a
// worker over conn (KeyService.ListPublicKeys).
func FromWorker(conn grpc.ClientConnInterface) Loader {
	client := taskwirev1.NewKeyServiceClient(conn)
	return func(ctx context.Context) ([]Public, error) {
		resp, err := client.ListPublicKeys(ctx, &taskwirev1.ListPublicKeysRequest{})
		if err != nil {
			return nil, fmt.Errorf("keys: list public keys from a worker: %w", err)
		}
		out := make([]Public, 0, len(resp.GetKeys()))
		for _, k := range resp.GetKeys() {
			if k.GetKid() == "" || len(k.GetPublicKey()) != ed25519.PublicKeySize {
				continue
			}
			p := Public{ID: k.GetKid(), Key: ed25519.PublicKey(k.GetPublicKey())}
			if k.GetVerifyUntil().IsValid() {
				p.VerifyUntil = k.GetVerifyUntil().AsTime()
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			return nil, errors.New("keys: the worker lists no public key")
		}
		return out, nil
	}
}

package keys

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/signingkey"
)

// Notifier tells every worker and front door that the keys changed;
// *events.Bus is one.
type Notifier interface {
	PublishKeysChanged() error
}

// Config configures a Ring.
type Config struct {
	Client *ent.Client // required
	// Root is the deployment's root key, the configured key file: it seals
	// new signing keys and opens those sealed under it. Required.
	Root *authn.Key
	// Retired are former root keys (--retired-signing-keys): they open the
	// signing keys sealed under them, and their tokens verify as long as
	// they are configured.
	Retired []*authn.Key
	// Events tells the others of a rotation; nil: nobody is told, and
	// they learn of it at their next reload.
	Events Notifier
	// VerifyFor, when positive, is how long a retired key verifies,
	// instead of the latest expiry of the tokens it may have signed: for
	// tests.
	VerifyFor time.Duration
	// MaxTTL is the longest a token may live (--max-token-ttl); 0 means
	// authn.DefaultMaxTTL. A retired key never verifies longer than this
	// past its retirement.
	MaxTTL time.Duration
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // required
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("keys: Config.Client is nil")
	case c.Root == nil || len(c.Root.Private) != ed25519.PrivateKeySize:
		return errors.New("keys: Config.Root is not a key")
	case c.VerifyFor < 0:
		return errors.New("keys: Config.VerifyFor is negative")
	case c.MaxTTL < 0:
		return errors.New("keys: Config.MaxTTL is negative")
	case c.Logger == nil:
		return errors.New("keys: Config.Logger is required")
	}
	return nil
}

// Ring is a worker's keyring. It is safe for concurrent use.
type Ring struct {
	cfg   Config
	clock func() time.Time
	log   *slog.Logger

	mu         sync.RWMutex
	current    *authn.Key // nil when it cannot be opened: currentErr says why
	currentErr error
	public     []Public // the database's keys, current first, then config's
}

// New returns a Ring for cfg; Init fills it.
func New(cfg Config) (*Ring, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Ring{cfg: cfg, clock: cfg.Now, log: cfg.Logger, currentErr: errors.New("keys: not loaded")}
	if r.clock == nil {
		r.clock = time.Now
	}
	if r.cfg.MaxTTL == 0 {
		r.cfg.MaxTTL = authn.DefaultMaxTTL
	}
	return r, nil
}

// Init makes sure the database has a signing key, then loads the keys. On
// an empty table the root key becomes the first signing key, with its kid,
// so tokens it signed keep verifying. When the root key is not in the
// table, the deployment rotated it by configuration: it becomes the
// current signing key and the one before retires, as Rotate does.
func (r *Ring) Init(ctx context.Context) error {
	known, err := r.cfg.Client.SigningKey.Query().Where(signingkey.Kid(r.cfg.Root.ID)).Exist(ctx)
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	if !known {
		switch rot, err := r.rotateTo(ctx, r.cfg.Root); {
		case ent.IsConstraintError(err):
			// Another process added it meanwhile.
		case err != nil:
			return err
		case rot.Previous.ID != "":
			r.log.Info("keys: the configured key signs tokens from now on", "kid", rot.Current.ID, "previous", rot.Previous.ID)
		}
	}
	return r.Load(ctx)
}

// Load reads the keys from the database.
func (r *Ring) Load(ctx context.Context) error {
	rows, err := r.cfg.Client.SigningKey.Query().
		Order(ent.Desc(signingkey.FieldCreatedAt), ent.Desc(signingkey.FieldID)).All(ctx)
	if err != nil {
		return fmt.Errorf("keys: load: %w", err)
	}
	var current *authn.Key
	currentErr := errors.New("keys: the database has no current signing key")
	found := false
	public := make([]Public, 0, len(rows)+len(r.cfg.Retired))
	for _, row := range rows {
		p := Public{ID: row.Kid, Key: ed25519.PublicKey(row.PublicKey)}
		switch {
		case row.RetiredAt == nil && !found: // the newest key not retired signs
			found = true
			current, currentErr = r.open(row)
			public = append([]Public{p}, public...)
		case row.VerifyUntil != nil:
			p.VerifyUntil = *row.VerifyUntil
			public = append(public, p)
		}
	}
	public = append(public, FromConfig(r.cfg.Retired)...)
	r.mu.Lock()
	r.current, r.currentErr, r.public = current, currentErr, public
	r.mu.Unlock()
	if currentErr != nil {
		r.log.Error("keys: no key to sign tokens with: this worker cannot mint tokens", "err", currentErr)
	}
	return nil
}

// open unseals the private key of row with the root key that sealed it.
func (r *Ring) open(row *ent.SigningKey) (*authn.Key, error) {
	for _, root := range append([]*authn.Key{r.cfg.Root}, r.cfg.Retired...) {
		if root.ID == row.WrappedBy {
			return unseal(root, row.Kid, row.SealedKey)
		}
	}
	return nil, fmt.Errorf("%w (%s): start it with that key as --signing-key or in --retired-signing-keys", errSealed, row.WrappedBy)
}

// Current returns the key to sign tokens with, for authn.IssuerConfig.
func (r *Ring) Current() (*authn.Key, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.current, r.currentErr
}

// Public returns the keys tokens may be signed with that still verify:
// the current key first.
func (r *Ring) Public() []Public {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return live(r.public, r.clock())
}

// Lookup returns the public key of kid if it still verifies, for
// authn.VerifierConfig.KeySource.
func (r *Ring) Lookup(kid string) (ed25519.PublicKey, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return lookup(r.public, kid, r.clock())
}

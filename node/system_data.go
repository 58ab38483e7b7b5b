package node

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/conformance"
	"github.com/taskwire/taskwire/services/tokens"
)

// What a System keeps in its database: the signing keys, the first
// tenant, and with Conformance the member requests without a token act as.

// openDB opens (and migrates) the database at dsn, its driver traced by
// tel; on SQLite, reserve keeps room beside it for reads on a full disk.
func openDB(ctx context.Context, dsn string, tel *telemetry.Telemetry, reserve *store.Reserve, log *slog.Logger) (*ent.Client, error) {
	return store.Open(ctx, dsn, store.WrapDriver(tel.EntDriver), store.KeepReserve(reserve), store.Logger(log))
}

// keys loads (or creates) the root key and the retired ones, opens the
// keyring and the issuer, and returns the retired keys.
func (s *System) keys(ctx context.Context) ([]*authn.Key, error) {
	cfg := s.cfg
	var err error
	if s.Key, _, err = authn.LoadOrCreateKey(cfg.SigningKey); err != nil {
		return nil, err
	}
	retired, err := LoadRetiredKeys(cfg.RetiredKeys, s.Key)
	if err != nil {
		return nil, err
	}
	// Tokens are signed with the keyring's current key, which the admin
	// API rotates; the key file seals it at rest.
	signing, err := OpenSigning(ctx, s.DB, s.bus.Conn, s.Key, retired, cfg.MaxTokenTTL, cfg.PublicURL, s.log)
	if err != nil {
		return nil, err
	}
	s.Keys, s.Issuer = signing.Keys, signing.Issuer
	return retired, nil
}

// bootstrap makes sure the database has its first tenant, owner and
// board, and with Conformance the fixture member that requests without
// a token act as (see conformance.Anonymous).
func (s *System) bootstrap(ctx context.Context) error {
	res, err := tenancy.Bootstrap(ctx, s.DB, tenancy.Config{
		TenantSlug: "default", TenantName: "Default",
		OwnerHandle: "owner", OwnerName: "Owner",
		BoardSlug: "main", BoardName: "Main",
	})
	if err != nil {
		return fmt.Errorf("first start: %w", err)
	}
	s.first = res
	if !s.cfg.Conformance {
		return nil
	}
	store, err := s.tokenStore()
	if err != nil {
		return err
	}
	s.anonymous, err = conformance.Anonymous(ctx, s.DB, store, s.Issuer, res.Tenant.Slug, res.Owner.Handle)
	return err
}

// tokenStore is a token store over the system's database, for the tokens
// it mints itself.
func (s *System) tokenStore() (*tokens.Store, error) {
	return tokens.New(tokens.Config{Client: s.DB, MaxTTL: s.cfg.MaxTokenTTL, Logger: s.log})
}

// Welcome is what a first start shows once: the first tenant, owner and
// board, and the owner's token, which is not stored and so cannot be
// shown again.
type Welcome struct {
	Tenant, Owner, Board string
	Token                string
	Expires              time.Time
	// SignInLink is the owner's one-time link to the console, at the
	// public URL; it works once, until SignInExpires.
	SignInLink    string
	SignInExpires time.Time
}

// Welcome mints the owner's token and makes their one-time sign-in link
// when this start created the first tenant; nil when the database had it
// already.
func (s *System) Welcome(ctx context.Context) (*Welcome, error) {
	res := s.first
	if !res.Created {
		return nil, nil
	}
	recorded, err := s.tokenStore()
	if err != nil {
		return nil, err
	}
	token, minted, err := recorded.Create(ctx, s.Issuer, tokens.CreateRequest{
		Tenant: res.Tenant.Slug, Member: res.Owner.ID, Scopes: authz.AllScopes, Label: "first start",
	})
	if err != nil {
		return nil, err
	}
	w := &Welcome{Tenant: res.Tenant.Slug, Owner: res.Owner.Handle, Board: res.Board.Slug, Token: token, Expires: minted.ExpiresAt}
	if w.SignInLink, w.SignInExpires, err = s.firstSignInLink(ctx, w.Tenant, w.Owner); err != nil {
		return nil, err
	}
	return w, nil
}

// NewOperatorSecret returns the operator secret when this start created
// it, once: it is to be shown to whoever started the system, and then
// never again.
func (s *System) NewOperatorSecret() string {
	secret := s.newSecret
	s.newSecret = ""
	return secret
}

// LoadRetiredKeys reads the signing keys rotated out, which must exist and
// differ from the current key and from each other.
func LoadRetiredKeys(files []string, current *authn.Key) ([]*authn.Key, error) {
	seen := map[string]bool{current.ID: true}
	var keys []*authn.Key
	for _, f := range files {
		k, err := authn.LoadKey(f)
		if err != nil {
			return nil, fmt.Errorf("retired signing key: %w", err)
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("retired signing key %s is the signing key or another retired one: list each rotated-out key once", f)
		}
		seen[k.ID] = true
		keys = append(keys, k)
	}
	return keys, nil
}

package tokens

import (
	"context"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/signingkey"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/safetext"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// MaxLabelLen bounds a token's label, in characters.
const MaxLabelLen = 100

// CreateRequest names who a new token is for and what it allows.
type CreateRequest struct {
	Tenant string        // tenant slug
	Member int           // member id, in Tenant
	Scopes []string      // read, comment, write; none for an admin token
	TTL    time.Duration // 0 means the default lifetime, at most the maximum
	Label  string        // optional, e.g. "laptop claude"
	// Toolsets limits the token to these toolsets; none means all.
	Toolsets []string
	// Admin mints an admin token: a person's credential for the admin API,
	// with no scopes or toolsets, for an owner or admin only.
	Admin bool
	// GrantID is the OAuth grant the token is issued under (0: none), so
	// that revoking the grant revokes the token (RevokeGrant).
	GrantID int
}

// Create mints a token with is and records it. The token is returned only
// once its record is committed: a token that could not be recorded would
// be refused by every worker, so none is returned then. The caller shows
// the token once; it cannot be read back.
func (s *Store) Create(ctx context.Context, is *authn.Issuer, r CreateRequest) (string, Info, error) {
	label, err := checkLabel(r.Label)
	if err != nil {
		return "", Info{}, err
	}
	ttl, err := s.lifetime(r.TTL)
	if err != nil {
		return "", Info{}, err
	}
	r.Label = label
	t, ctx, err := tenancy.Tenant(ctx, s.client, r.Tenant)
	if err != nil {
		return "", Info{}, err
	}
	raw, minted, err := is.Mint(authn.MintRequest{Tenant: t.Slug, Member: r.Member, Scopes: r.Scopes, Toolsets: r.Toolsets, TTL: ttl, Admin: r.Admin})
	if err != nil {
		return "", Info{}, domainerr.Wrap(domainerr.Invalid, err, "cannot mint this token: %s", err.Error())
	}
	var info Info
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		m, err := tenancy.MemberByID(ctx, tx.Client(), t, r.Member)
		if err != nil {
			return err
		}
		if r.Admin {
			if err := mayHoldAdminToken(t, m); err != nil {
				return err
			}
		}
		if err := s.quota.CheckTokens(ctx, tx, m, s.now()); err != nil {
			return err
		}
		if err := holdKey(ctx, tx, minted.KeyID); err != nil {
			return err
		}
		create := tx.Token.Create().SetTenantID(t.ID).SetMemberID(m.ID).
			SetJti(minted.ID).SetScopes(orEmpty(normalScopes(r.Scopes))).SetToolsets(orEmpty(minted.Toolsets)).SetLabel(r.Label).
			SetCreatedAt(s.now()).SetExpiresAt(minted.ExpiresAt.UTC()).
			SetKind(kindOf(r.Admin)).SetIssuer(minted.Issuer).SetKid(minted.KeyID)
		if r.GrantID != 0 {
			create.SetGrantID(r.GrantID)
		}
		row, err := create.Save(ctx)
		if err != nil {
			return err
		}
		info = infoOf(row, m)
		return nil
	})
	if err != nil {
		return "", Info{}, store.DomainError(ctx, err)
	}
	return raw, info, nil
}

func kindOf(admin bool) token.Kind {
	if admin {
		return token.KindAdmin
	}
	return token.KindMcp
}

// mayHoldAdminToken refuses an admin token to anyone but a person who is
// an owner or admin of t: assistants never administer, and a lesser role
// could do nothing with one. The admin API checks the role again on every
// call, as it may have changed since.
func mayHoldAdminToken(t *ent.Tenant, m *ent.Member) error {
	switch {
	case m.Kind != member.KindHuman:
		return domainerr.New(domainerr.Invalid, "%s is an assistant, and admin tokens are for people: assistants never administer", m.Handle)
	case m.Role != member.RoleOwner && m.Role != member.RoleAdmin:
		return domainerr.New(domainerr.Invalid, "%s is %s %s of %s, and admin tokens are for owners and admins: make %s an admin first",
			m.Handle, authz.Article(string(m.Role)), m.Role, t.Slug, m.Handle)
	}
	return nil
}

// holdKey takes the row lock of the signing key kid for the rest of tx,
// and refuses when the key was retired meanwhile. A rotation retires the
// key under the same lock, then reads the expiries of the tokens it
// signed to decide until when it verifies (keys.Ring.Rotate): so every
// token a key signs is either counted in its window, or refused here, and
// never outlives its key. A key with no row is one given to an issuer
// directly, which no rotation retires.
func holdKey(ctx context.Context, tx *ent.Tx, kid string) error {
	n, err := tx.SigningKey.Update().Where(signingkey.Kid(kid), signingkey.RetiredAtIsNil()).ClearRetiredAt().Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	known, err := tx.SigningKey.Query().Where(signingkey.Kid(kid)).Exist(ctx)
	if err != nil || !known {
		return err
	}
	return domainerr.New(domainerr.Unavailable, "the signing key was rotated just now: try again")
}

// normalScopes is scopes as authn.Mint puts them in the token: without
// duplicates, weakest first.
func normalScopes(scopes []string) []string {
	var out []string
	for _, s := range authz.AllScopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// orEmpty is toolsets as the database keeps them: [] rather than null for
// a token limited to none, i.e. allowed every toolset.
func orEmpty(toolsets []string) []string {
	if toolsets == nil {
		return []string{}
	}
	return toolsets
}

// checkLabel returns the label trimmed and in NFC, or refuses one that
// would garble a listing or hide text from the person reading it
// (safetext.Line).
func checkLabel(l string) (string, error) {
	l, err := safetext.Line("the label", l)
	if err != nil {
		return "", domainerr.New(domainerr.Invalid, "%s", domainerr.Safe(err.Error()))
	}
	if utf8.RuneCountInString(l) > MaxLabelLen {
		return "", domainerr.New(domainerr.Invalid, "the label is longer than %d characters: shorten it", MaxLabelLen)
	}
	return l, nil
}

package tokens

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/authz"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/quota"
	"github.com/taskwire/taskwire/services/store"
)

// MaxLabelLen bounds a token's label, in characters.
const MaxLabelLen = 100

// CreateRequest names who a new token is for and what it allows.
type CreateRequest struct {
	Tenant string        // tenant slug
	Member int           // member id, in Tenant
	Scopes []string      // read, comment, write
	TTL    time.Duration // 0 means authn.DefaultTTL
	Label  string        // optional, e.g. "laptop claude"
	// Toolsets limits the token to these toolsets; none means all.
	Toolsets []string
}

// Create mints a token with is and records it. The token is returned only
// once its record is committed: a token that could not be recorded would
// be refused by every worker, so none is returned then. The caller shows
// the token once; it cannot be read back.
func (s *Store) Create(ctx context.Context, is *authn.Issuer, r CreateRequest) (string, Info, error) {
	if err := checkLabel(r.Label); err != nil {
		return "", Info{}, err
	}
	t, ctx, err := scope(ctx, s.client, r.Tenant)
	if err != nil {
		return "", Info{}, err
	}
	raw, minted, err := is.Mint(authn.MintRequest{Tenant: t.Slug, Member: r.Member, Scopes: r.Scopes, Toolsets: r.Toolsets, TTL: r.TTL})
	if err != nil {
		return "", Info{}, domainerr.Wrap(domainerr.Invalid, err, "cannot mint this token: "+err.Error())
	}
	var info Info
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		m, err := findMember(ctx, tx.Client(), t, r.Member)
		if err != nil {
			return err
		}
		if err := s.checkQuota(ctx, tx, m); err != nil {
			return err
		}
		row, err := tx.Token.Create().SetTenantID(t.ID).SetMemberID(m.ID).
			SetJti(minted.ID).SetScopes(normalScopes(r.Scopes)).SetToolsets(orEmpty(minted.Toolsets)).SetLabel(r.Label).
			SetCreatedAt(s.now()).SetExpiresAt(minted.ExpiresAt.UTC()).
			Save(ctx)
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

// checkLabel refuses labels that would garble a listing.
func checkLabel(l string) error {
	if utf8.RuneCountInString(l) > MaxLabelLen {
		return domainerr.New(domainerr.Invalid, "the label is longer than %d characters: shorten it", MaxLabelLen)
	}
	if !utf8.ValidString(l) || strings.IndexFunc(l, unicode.IsControl) >= 0 {
		return domainerr.New(domainerr.Invalid, "the label has a control character or invalid UTF-8: use plain text on one line")
	}
	return nil
}

// checkQuota refuses a token beyond its member's quota of live tokens,
// counted under the tenant's lock so that two creations at once cannot
// both take the last place.
func (s *Store) checkQuota(ctx context.Context, tx *ent.Tx, m *ent.Member) error {
	if s.quota.TokensPerMember == 0 {
		return nil
	}
	if err := quota.Lock(ctx, tx, m.TenantID); err != nil {
		return err
	}
	return s.quota.CheckTokens(ctx, tx, m, s.now())
}

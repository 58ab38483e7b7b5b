package tokens

import (
	"context"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/internal/safetext"
	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/authz"
	"github.com/taskwire/taskwire/services/domainerr"
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
	label, err := checkLabel(r.Label)
	if err != nil {
		return "", Info{}, err
	}
	r.Label = label
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

// checkLabel returns the label trimmed and in NFC, or refuses one that
// would garble a listing or hide text from the person reading it
// (safetext.Line).
func checkLabel(l string) (string, error) {
	l, err := safetext.Line("the label", l)
	if err != nil {
		return "", domainerr.New(domainerr.Invalid, "%s", err.Error())
	}
	if utf8.RuneCountInString(l) > MaxLabelLen {
		return "", domainerr.New(domainerr.Invalid, "the label is longer than %d characters: shorten it", MaxLabelLen)
	}
	return l, nil
}

package tokens

import (
	"context"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Info describes a recorded token: everything but the token itself.
type Info struct {
	ID       string   `json:"id"` // the JWT id (jti)
	MemberID int      `json:"member_id"`
	Member   string   `json:"member"` // the member's handle
	Scopes   []string `json:"scopes"`
	// Toolsets the token is limited to; absent (none) means every toolset.
	Toolsets []string `json:"toolsets,omitempty"`
	// Admin marks an admin token: for the admin API, with no scopes.
	Admin      bool       `json:"admin,omitempty"`
	Label      string     `json:"label,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// The states of a token, as State tells them.
const (
	StateLive    = "live"
	StateRevoked = "revoked"
	StateExpired = "expired"
)

// State tells whether the token is live, revoked or expired at now. A
// token both revoked and expired is revoked: that is what someone did.
func (i Info) State(now time.Time) string {
	switch {
	case i.RevokedAt != nil:
		return StateRevoked
	case !now.Before(i.ExpiresAt):
		return StateExpired
	}
	return StateLive
}

func infoOf(t *ent.Token, m *ent.Member) Info {
	return Info{
		ID: t.Jti, MemberID: t.MemberID, Member: m.Handle, Scopes: t.Scopes, Toolsets: nilIfEmpty(t.Toolsets), Label: t.Label,
		Admin:     t.Kind == token.KindAdmin,
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt,
	}
}

// List returns the tokens of the tenant with slug tenantSlug, oldest
// first: all of them, or with member > 0 only that member's. Revoked and
// expired tokens are listed too, with their state. A member of another
// tenant is not found.
func (s *Store) List(ctx context.Context, tenantSlug string, member int) ([]Info, error) {
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return nil, err
	}
	q := s.client.Token.Query().Where(token.TenantID(t.ID))
	if member > 0 {
		if _, err := tenancy.MemberByID(ctx, s.client, t, member); err != nil {
			return nil, store.DomainError(ctx, err)
		}
		q.Where(token.MemberID(member))
	}
	rows, err := q.WithMember().Order(ent.Asc(token.FieldCreatedAt), ent.Asc(token.FieldID)).All(ctx)
	if err != nil {
		return nil, store.DomainError(ctx, err)
	}
	out := make([]Info, len(rows))
	for i, r := range rows {
		out[i] = infoOf(r, r.Edges.Member)
	}
	return out, nil
}

// nilIfEmpty is nil for a token limited to no toolsets, however the row
// stored it ([] or, for rows older than the column, null).
func nilIfEmpty(toolsets []string) []string {
	if len(toolsets) == 0 {
		return nil
	}
	return toolsets
}

// IssuedElsewhere counts the live tokens, of all tenants, issued for
// another public URL than publicURL, by that URL: after a restart on
// another address (or behind another name) they are refused, and whoever
// starts the server should hear why. Tokens recorded before their URL was
// kept are not counted.
func (s *Store) IssuedElsewhere(ctx context.Context, publicURL string) (map[string]int, error) {
	rows, err := s.client.Token.Query().
		Where(token.RevokedAtIsNil(), token.ExpiresAtGT(s.now()), token.IssuerNEQ(""), token.IssuerNEQ(publicURL)).
		Select(token.FieldIssuer).Strings(system(ctx))
	if err != nil {
		return nil, store.DomainError(ctx, err)
	}
	out := map[string]int{}
	for _, url := range rows {
		out[url]++
	}
	return out, nil
}

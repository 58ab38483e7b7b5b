package tenancy

import (
	"context"
	"errors"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
)

// Resolver reads the membership behind a call from the database: the
// worker's access resolver. It reads on every call, so a changed role or a
// removed member takes effect at the next call.
type Resolver struct {
	client *ent.Client
}

// NewResolver returns a Resolver over client.
func NewResolver(client *ent.Client) (*Resolver, error) {
	if client == nil {
		return nil, errors.New("tenancy: NewResolver: nil client")
	}
	return &Resolver{client: client}, nil
}

// Resolve returns what c is on its tenant now: two queries, the tenant by
// slug and the member (with its sponsor) by id within it. A tenant or
// member that does not exist, and a member who was removed, is
// Unauthenticated, in a sentence the caller can act on.
func (r *Resolver) Resolve(ctx context.Context, c identity.Caller) (identity.Access, error) {
	if err := c.Validate(); err != nil {
		return identity.Access{}, domainerr.New(domainerr.Unauthenticated, "No verified caller: sign in with a token for a member of a tenant")
	}
	t, m, _, err := Caller(ctx, r.client, c)
	if err != nil {
		return identity.Access{}, err
	}
	if m.RemovedAt != nil {
		// Removal revokes the member's tokens too; this holds even for a
		// token the revocation missed.
		return identity.Access{}, domainerr.New(domainerr.Unauthenticated,
			"You were removed from tenant %s: ask an owner or admin of %s if that is a mistake", t.Slug, t.Slug)
	}
	a := identity.Access{
		TenantID: t.ID, Tenant: t.Slug, TenantName: t.Name,
		MemberID: m.ID, Handle: m.Handle, DisplayName: m.DisplayName,
		Kind: string(m.Kind), Role: string(m.Role),
	}
	if s := m.Edges.Sponsor; s != nil {
		a.SponsorID, a.Sponsor = s.ID, s.Handle
	}
	return a, nil
}

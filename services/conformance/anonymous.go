package conformance

import (
	"context"
	"fmt"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/tokens"
)

// AnonymousHandle is the member requests without a token act as, where a
// deployment serves the fixtures (--conformance).
const AnonymousHandle = "conformance-suite"

// Anonymous returns who requests without a token act as, where a
// deployment serves the fixtures: the member AnonymousHandle of tenant,
// an assistant sponsored by sponsor (added on the first call), with read
// scope only, so an open loopback port cannot change the board. Its token
// is minted by issuer and recorded in store like any other, so workers
// accept it and an admin sees (and may revoke) it.
func Anonymous(ctx context.Context, db *ent.Client, store *tokens.Store, issuer *authn.Issuer, tenant, sponsor string) (*identity.Caller, error) {
	m, err := tenancy.FindMember(ctx, db, tenant, AnonymousHandle)
	if domainerr.KindOf(err) == domainerr.NotFound {
		m, err = tenancy.AddMember(ctx, db, tenant, tenancy.MemberSpec{
			Handle: AnonymousHandle, Name: "MCP conformance suite",
			Kind: member.KindAssistant, SponsorHandle: sponsor,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("conformance member: %w", err)
	}
	_, minted, err := store.Create(ctx, issuer, tokens.CreateRequest{
		Tenant: tenant, Member: m.ID, Scopes: []string{authz.ScopeRead},
		Label: "requests without a token (--conformance)",
	})
	if err != nil {
		return nil, fmt.Errorf("conformance token: %w", err)
	}
	return &identity.Caller{
		Tenant: tenant, Member: m.ID, Scopes: []string{authz.ScopeRead}, TokenID: minted.ID,
		Expires: minted.ExpiresAt, Kind: identity.KindMCP,
	}, nil
}

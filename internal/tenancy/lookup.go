package tenancy

import (
	"context"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// Tenant returns the tenant with slug, and ctx scoped to it for the
// privacy rule: the one lookup of a tenant by slug, so every service
// answers an unknown tenant alike (NotFound, "no tenant %q") and
// translates what else fails once (store.DomainError).
func Tenant(ctx context.Context, client *ent.Client, slug string) (*ent.Tenant, context.Context, error) {
	t, err := client.Tenant.Query().Where(tenant.Slug(slug)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ctx, domainerr.Wrap(domainerr.NotFound, err, "no tenant %q", slug)
	}
	if err != nil {
		return nil, ctx, store.DomainError(ctx, err)
	}
	return t, tenantscope.NewContext(ctx, t.ID), nil
}

// MemberByHandle returns the member with handle in t, with its sponsor,
// removed members included: a handle names one member of one tenant, so
// the query always carries the tenant. An unknown handle is NotFound
// ("no member %q in tenant %s"). ctx must be scoped to t.
func MemberByHandle(ctx context.Context, c *ent.Client, t *ent.Tenant, handle string) (*ent.Member, error) {
	m, err := memberWhere(ctx, c, t, member.Handle(handle))
	if ent.IsNotFound(err) {
		return nil, domainerr.Wrap(domainerr.NotFound, err, "no member %q in tenant %s", handle, t.Slug)
	}
	return m, store.DomainError(ctx, err)
}

// MemberByID returns the member with id in t, with its sponsor, removed
// members included. A member of another tenant is not found, in the same
// words as one that does not exist ("no member %d in tenant %s").
func MemberByID(ctx context.Context, c *ent.Client, t *ent.Tenant, id int) (*ent.Member, error) {
	m, err := memberWhere(ctx, c, t, member.ID(id))
	if ent.IsNotFound(err) {
		return nil, domainerr.Wrap(domainerr.NotFound, err, "no member %d in tenant %s", id, t.Slug)
	}
	return m, store.DomainError(ctx, err)
}

func memberWhere(ctx context.Context, c *ent.Client, t *ent.Tenant, p predicate.Member) (*ent.Member, error) {
	return c.Member.Query().Where(member.TenantID(t.ID), p).WithSponsor().Only(ctx)
}

// Caller returns the tenant and member a verified caller names, and ctx
// scoped to the tenant. A tenant or member that does not exist is
// Unauthenticated, in a sentence the caller can act on; a removed member
// is returned as such (Resolver refuses it).
func Caller(ctx context.Context, client *ent.Client, c identity.Caller) (*ent.Tenant, *ent.Member, context.Context, error) {
	t, ctx, err := Tenant(ctx, client, c.Tenant)
	if domainerr.KindOf(err) == domainerr.NotFound {
		return nil, nil, ctx, domainerr.Wrap(domainerr.Unauthenticated, err,
			"Your token names a tenant that does not exist: ask an admin for a new token")
	}
	if err != nil {
		return nil, nil, ctx, err
	}
	m, err := MemberByID(ctx, client, t, c.Member)
	if domainerr.KindOf(err) == domainerr.NotFound {
		return nil, nil, ctx, domainerr.Wrap(domainerr.Unauthenticated, err,
			"Your token names a member who is not in its tenant: ask an admin for a new token")
	}
	if err != nil {
		return nil, nil, ctx, err
	}
	return t, m, ctx, nil
}

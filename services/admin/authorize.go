package admin

import (
	"context"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// The rules of the admin API, in one place:
//
//   - A platform operator may do everything, on every tenant; only
//     operators create and list tenants.
//   - A member acts on their own tenant only, with an admin token (never
//     an MCP token: an assistant's token must not administer), and only as
//     an owner or admin. Any other tenant is not found, in the same words
//     as a tenant that does not exist.
//   - Assistants are at most members (tenancy.CheckRole), so they never
//     administer, and admin tokens are minted for people only.
//   - An admin may do what an owner may, except act on owners: make a
//     member owner, or change, remove, mint tokens for or revoke tokens of
//     an owner. So no admin can make themselves or anyone an owner, nor
//     get hold of an owner's power through a token.
//   - No one demotes or removes a tenant's last owner (members.go).

// actor is who makes an admin call.
type actor struct {
	operator bool
	// person names an operator signed in to the console (their email),
	// "" for the operator secret; home is the tenant their session acts
	// in, which calls naming no tenant act on.
	person, home string
	access       identity.Access // the calling member, unless operator
	admin        bool            // the member calls with an admin token or a console session
}

// actor returns who calls: the operator the worker let through, or the
// verified caller with the membership the worker read for this call (read
// here only when the worker did not, as in tests calling directly).
func (s *Service) actor(ctx context.Context) (actor, error) {
	if identity.IsOperator(ctx) {
		a := actor{operator: true, person: identity.OperatorPerson(ctx)}
		if c, ok := identity.FromContext(ctx); ok {
			a.home = c.Tenant
		}
		return a, nil
	}
	c, ok := identity.FromContext(ctx)
	if !ok || c.Validate() != nil {
		return actor{}, domainerr.New(domainerr.Unauthenticated,
			"No verified caller: use the operator secret or an admin token of an owner or admin of a tenant")
	}
	a, ok := identity.AccessFrom(ctx)
	if !ok || a.Tenant != c.Tenant || a.MemberID != c.Member {
		var err error
		if a, err = s.resolver.Resolve(ctx, c); err != nil {
			return actor{}, err
		}
	}
	// A person in the console administers as with their admin token.
	return actor{access: a, admin: c.IsAdmin() || c.IsSession()}, nil
}

// hasOwnerPowers reports whether a may act on owners.
func (a actor) hasOwnerPowers() bool {
	return a.operator || a.access.Role == authz.RoleOwner
}

// operatorOnly refuses everyone but operators, for what spans tenants.
func (a actor) operatorOnly(what string) error {
	if a.operator {
		return nil
	}
	return domainerr.New(domainerr.PermissionDenied,
		"Only the platform operators of this deployment can %s; you act on tenant %s only.", what, a.access.Tenant)
}

// mayManage refuses a member who is no owner or admin, or who calls with
// an MCP token (the worker refuses those first).
func (a actor) mayManage() error {
	if a.operator {
		return nil
	}
	if !a.admin {
		return domainerr.New(domainerr.Unauthenticated,
			"This is an MCP token, which cannot administer: use the operator secret or an admin token.")
	}
	r, t := a.access.Role, a.access.Tenant
	if r != authz.RoleOwner && r != authz.RoleAdmin {
		return domainerr.New(domainerr.PermissionDenied,
			"You are %s %s on tenant %s: managing members, tokens and boards needs an owner or admin of %s.", authz.Article(r), r, t, t)
	}
	return nil
}

// mayActOn refuses an admin acting on an owner; doing says what, e.g.
// "remove".
func (a actor) mayActOn(m *ent.Member, doing string) error {
	if m.Role != member.RoleOwner || a.hasOwnerPowers() {
		return nil
	}
	return domainerr.New(domainerr.PermissionDenied,
		"%s is an owner of %s, and admins cannot %s owners: ask an owner.", m.Handle, a.access.Tenant, doing)
}

// mayGrant refuses an admin giving the owner role.
func (a actor) mayGrant(role member.Role) error {
	if role != member.RoleOwner || a.hasOwnerPowers() {
		return nil
	}
	return domainerr.New(domainerr.PermissionDenied,
		"Admins cannot make owners: ask an owner of %s.", a.access.Tenant)
}

// manage returns the tenant with slug for a to manage, with ctx scoped to
// it. An empty slug is the caller's own tenant; an operator must name one,
// unless a console session of theirs acts in one.
func (s *Service) manage(ctx context.Context, a actor, slug string) (*ent.Tenant, context.Context, error) {
	if !a.operator {
		if slug == "" {
			slug = a.access.Tenant
		}
		if slug != a.access.Tenant {
			return nil, ctx, noTenant(slug)
		}
		if err := a.mayManage(); err != nil {
			return nil, ctx, err
		}
	} else if slug == "" && a.home != "" {
		slug = a.home
	} else if slug == "" {
		return nil, ctx, domainerr.New(domainerr.Invalid, "name the tenant: operators act on every tenant, so each call names one")
	}
	return tenancy.Tenant(ctx, s.client, slug)
}

// noTenant is the answer for a tenant the caller may not see: the words
// of tenancy.Tenant for one that does not exist, so they cannot be told
// apart.
func noTenant(slug string) error {
	return domainerr.New(domainerr.NotFound, "no tenant %q", slug)
}

// managedMember returns the member with handle in t (tenancy.MemberByHandle);
// removed members too when withRemoved, else they are refused as removed.
func managedMember(ctx context.Context, c *ent.Client, t *ent.Tenant, handle string, withRemoved bool) (*ent.Member, error) {
	if handle == "" {
		return nil, domainerr.New(domainerr.Invalid, "name the member by handle")
	}
	m, err := tenancy.MemberByHandle(ctx, c, t, handle)
	if err != nil {
		return nil, err
	}
	if m.RemovedAt != nil && !withRemoved {
		return nil, domainerr.New(domainerr.Conflict, "%s was removed from %s on %s: add a member with another handle",
			handle, t.Slug, m.RemovedAt.UTC().Format("2006-01-02"))
	}
	return m, nil
}

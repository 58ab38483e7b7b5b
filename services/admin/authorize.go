package admin

import (
	"context"
	"slices"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/tokens"
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
//   - Self-service: a person in the console (a session, never a token)
//     who is no owner or admin manages only what is theirs: themselves
//     and the assistants they sponsor. They may list the members (the
//     console's Members page); add an assistant they sponsor, with a role
//     no stronger than theirs and at most member; mint MCP tokens (never
//     admin tokens) for themselves or those assistants; and list and
//     revoke those tokens only. A viewer may do the same: their role
//     already narrows every token they mint to reading (authz.Permits), so
//     a viewer's tokens and assistants read and nothing more. Everything
//     else still needs an owner or admin.

// actor is who makes an admin call.
type actor struct {
	operator bool
	// person names an operator signed in to the console (their email),
	// "" for the operator secret; home is the tenant their session acts
	// in, which calls naming no tenant act on.
	person, home string
	access       identity.Access // the calling member, unless operator
	admin        bool            // the member calls with an admin token or a console session
	session      bool            // the member calls from the console
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
	return actor{access: a, admin: c.IsAdmin() || c.IsSession(), session: c.IsSession()}, nil
}

// selfService reports whether a manages only what is theirs: a person in
// the console who is no owner or admin.
func (a actor) selfService() bool {
	r := a.access.Role
	return !a.operator && a.session && r != authz.RoleOwner && r != authz.RoleAdmin
}

// theirs reports whether m is the calling member or an assistant they
// sponsor.
func (a actor) theirs(m *ent.Member) bool {
	id := a.access.MemberID
	return m.ID == id || (m.SponsorID != nil && *m.SponsorID == id)
}

// mayServe refuses a self-service member acting on m when m is not
// theirs; owners, admins and operators pass. doing says what, e.g.
// "mint tokens for".
func (a actor) mayServe(m *ent.Member, doing string) error {
	if !a.selfService() || a.theirs(m) {
		return nil
	}
	return domainerr.New(domainerr.PermissionDenied,
		"You may %s yourself and the assistants you sponsor only, and %s is neither: ask an owner or admin of %s.", doing, m.Handle, a.access.Tenant)
}

// maySponsor refuses a self-service member adding anything but an
// assistant they sponsor, with a role no stronger than theirs and at
// most member.
func (a actor) maySponsor(kind member.Kind, sponsor string, role member.Role) error {
	if !a.selfService() {
		return nil
	}
	if kind != member.KindAssistant || sponsor != a.access.Handle {
		return domainerr.New(domainerr.PermissionDenied,
			"You may add only assistants you sponsor yourself (sponsor %s): ask an owner or admin of %s to add anyone else.", a.access.Handle, a.access.Tenant)
	}
	if !authz.AtLeast(authz.RoleMember, string(role)) || !authz.AtLeast(a.access.Role, string(role)) {
		return domainerr.New(domainerr.PermissionDenied,
			"Your assistant may have your role (%s) or a weaker one, and at most member: pick another role.", a.access.Role)
	}
	return nil
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

// mayMintAdmin refuses a self-service member an admin token: the
// console is where they manage what is theirs.
func (a actor) mayMintAdmin(admin bool) error {
	if !admin || !a.selfService() {
		return nil
	}
	return domainerr.New(domainerr.PermissionDenied,
		"Admin tokens are for owners and admins of %s: mint an MCP token, or manage your assistants here in the console.", a.access.Tenant)
}

// onlyTheirs keeps of list the tokens a self-service member may see:
// their own and their assistants' (removed ones too, for the record).
func (s *Service) onlyTheirs(ctx context.Context, a actor, t *ent.Tenant, list []tokens.Info) ([]tokens.Info, error) {
	if !a.selfService() {
		return list, nil
	}
	id := a.access.MemberID
	ids, err := s.client.Member.Query().
		Where(member.TenantID(t.ID), member.Or(member.ID(id), member.SponsorID(id))).IDs(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(i tokens.Info) bool { return !slices.Contains(ids, i.MemberID) }), nil
}

// newRole is the role a new member gets when the call names none: member,
// or for a viewer's own assistant, viewer.
func (a actor) newRole() member.Role {
	if a.selfService() && a.access.Role == authz.RoleViewer {
		return member.RoleViewer
	}
	return member.RoleMember
}

// serve is manage for the calls a self-service member may make too (see
// selfService): they reach their own tenant, and each call then limits
// them to what is theirs.
func (s *Service) serve(ctx context.Context, a actor, slug string) (*ent.Tenant, context.Context, error) {
	if !a.selfService() {
		return s.manage(ctx, a, slug)
	}
	if slug != "" && slug != a.access.Tenant {
		return nil, ctx, noTenant(slug)
	}
	return tenancy.Tenant(ctx, s.client, a.access.Tenant)
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

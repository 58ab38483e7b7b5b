package tenancy

import (
	"context"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
)

// MemberSpec describes a member to add. Kind defaults to human and Role to
// member. An assistant needs SponsorHandle, the handle of the human member
// answerable for it; a human may not have one.
type MemberSpec struct {
	Handle        string
	Name          string
	Kind          member.Kind
	Role          member.Role
	SponsorHandle string
	// Quota bounds the tenant's current members (its Members); zero: no
	// bound. The admin API sets it; the first owner of a tenant needs none.
	Quota quota.Limits
}

func (s MemberSpec) withDefaults() MemberSpec {
	if s.Name == "" {
		s.Name = s.Handle
	}
	if s.Kind == "" {
		s.Kind = member.KindHuman
	}
	if s.Role == "" {
		s.Role = member.RoleMember
	}
	return s
}

// checked returns s with its name trimmed and in NFC, or why it cannot
// be added (Invalid).
func (s MemberSpec) checked() (MemberSpec, error) {
	name, err := cleanName("display name", s.Name)
	if err != nil {
		return s, err
	}
	s.Name = name
	return s, s.validate()
}

func (s MemberSpec) validate() error {
	if err := checkHandle(s.Handle); err != nil {
		return err
	}
	if member.KindValidator(s.Kind) != nil {
		return domainerr.New(domainerr.Invalid, "member kind %q is not valid: use human or assistant", s.Kind)
	}
	if member.RoleValidator(s.Role) != nil {
		return domainerr.New(domainerr.Invalid, "member role %q is not valid: use owner, admin, member or viewer", s.Role)
	}
	if err := CheckRole(s.Handle, s.Kind, s.Role); err != nil {
		return err
	}
	switch {
	case s.Kind == member.KindAssistant && s.SponsorHandle == "":
		return domainerr.New(domainerr.Invalid, "assistant %q needs a sponsor: name the handle of a human member", s.Handle)
	case s.Kind == member.KindHuman && s.SponsorHandle != "":
		return domainerr.New(domainerr.Invalid, "human member %q cannot have a sponsor: only assistants are sponsored", s.Handle)
	}
	return nil
}

// CheckRole refuses role for a member of kind: assistants hold at most
// the member role, so that no assistant administers (mints tokens, changes
// roles) on behalf of its sponsor.
func CheckRole(handle string, kind member.Kind, role member.Role) error {
	if kind == member.KindAssistant && (role == member.RoleOwner || role == member.RoleAdmin) {
		return domainerr.New(domainerr.Invalid, "%s is an assistant, and assistants are at most members: give it the member or viewer role", handle)
	}
	return nil
}

// AddMember adds a member to the tenant with slug tenantSlug. A taken handle
// is a Conflict; an unknown tenant or sponsor is NotFound.
func AddMember(ctx context.Context, client *ent.Client, tenantSlug string, spec MemberSpec) (*ent.Member, error) {
	t, ctx, err := Tenant(ctx, client, tenantSlug)
	if err != nil {
		return nil, err
	}
	var m *ent.Member
	err = store.WithTx(ctx, client, func(tx *ent.Tx) error {
		m, err = AddMemberTx(ctx, tx, t, spec)
		return err
	})
	if err != nil {
		return nil, store.DomainError(ctx, err)
	}
	return m, nil
}

// AddMemberTx is AddMember in tx, for a change that adds a member along
// with other rows (an OAuth grant's assistant): all commit or none. ctx
// must be scoped to t.
func AddMemberTx(ctx context.Context, tx *ent.Tx, t *ent.Tenant, spec MemberSpec) (*ent.Member, error) {
	spec, err := spec.withDefaults().checked()
	if err != nil {
		return nil, err
	}
	if err := spec.Quota.CheckMembers(ctx, tx, t); err != nil {
		return nil, err
	}
	create := tx.Member.Create().SetTenantID(t.ID).
		SetHandle(spec.Handle).SetDisplayName(spec.Name).
		SetKind(spec.Kind).SetRole(spec.Role)
	if spec.SponsorHandle != "" {
		sponsor, err := MemberByHandle(ctx, tx.Client(), t, spec.SponsorHandle)
		if err != nil {
			return nil, err
		}
		if sponsor.Kind != member.KindHuman {
			return nil, domainerr.New(domainerr.Invalid, "sponsor %q is an assistant: a sponsor must be a human member", sponsor.Handle)
		}
		create.SetSponsorID(sponsor.ID)
	}
	m, err := create.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, domainerr.Wrap(domainerr.Conflict, err,
			"tenant %s already has a member %q: choose another handle", t.Slug, spec.Handle)
	}
	return m, err
}

// FindMember returns the member with handle in the tenant with slug
// tenantSlug, or a NotFound error.
func FindMember(ctx context.Context, client *ent.Client, tenantSlug, handle string) (*ent.Member, error) {
	t, ctx, err := Tenant(ctx, client, tenantSlug)
	if err != nil {
		return nil, err
	}
	return MemberByHandle(ctx, client, t, handle)
}

package admin

import (
	"context"
	"strings"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// AddMember implements adminv1.AdminServiceServer.
func (s *Service) AddMember(ctx context.Context, req *adminv1.AddMemberRequest) (*adminv1.AddMemberResponse, error) {
	return call(ctx, s, req, s.addMember)
}

func (s *Service) addMember(ctx context.Context, a actor, req *adminv1.AddMemberRequest) (*adminv1.AddMemberResponse, error) {
	t, ctx, err := s.serve(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	kind, err := kindFromProto(req.GetKind())
	if err != nil {
		return nil, err
	}
	role, err := roleFromProto(req.GetRole(), a.newRole())
	if err != nil {
		return nil, err
	}
	if err := a.mayGrant(role); err != nil {
		return nil, err
	}
	if err := a.maySponsor(kind, req.GetSponsor(), role); err != nil {
		return nil, err
	}
	var sponsor *ent.Member
	if req.GetSponsor() != "" {
		// A removed person sponsors no one new.
		if sponsor, err = managedMember(ctx, s.client, t, req.GetSponsor(), false); err != nil {
			return nil, err
		}
	}
	m, err := tenancy.AddMember(ctx, s.client, t.Slug, tenancy.MemberSpec{
		Handle: req.GetHandle(), Name: req.GetDisplayName(), Kind: kind, Role: role, SponsorHandle: req.GetSponsor(),
		Quota: s.quota,
	})
	if err != nil {
		return nil, err
	}
	m.Edges.Sponsor = sponsor
	return &adminv1.AddMemberResponse{Member: memberToProto(m)}, nil
}

// ListMembers implements adminv1.AdminServiceServer.
func (s *Service) ListMembers(ctx context.Context, req *adminv1.ListMembersRequest) (*adminv1.ListMembersResponse, error) {
	return call(ctx, s, req, s.listMembers)
}

func (s *Service) listMembers(ctx context.Context, a actor, req *adminv1.ListMembersRequest) (*adminv1.ListMembersResponse, error) {
	t, ctx, err := s.serve(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	size, after, err := idPage(req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, err
	}
	q := s.client.Member.Query().Where(member.TenantID(t.ID), member.IDGT(after))
	if !req.GetShowRemoved() {
		q.Where(member.RemovedAtIsNil())
	}
	rows, err := q.WithSponsor().Order(ent.Asc(member.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &adminv1.ListMembersResponse{}
	rows, resp.NextPageToken = idPageEnd(rows, size, func(m *ent.Member) int { return m.ID })
	for _, m := range rows {
		resp.Members = append(resp.Members, memberToProto(m))
	}
	return resp, nil
}

// SetMemberRole implements adminv1.AdminServiceServer.
func (s *Service) SetMemberRole(ctx context.Context, req *adminv1.SetMemberRoleRequest) (*adminv1.SetMemberRoleResponse, error) {
	return call(ctx, s, req, s.setMemberRole)
}

func (s *Service) setMemberRole(ctx context.Context, a actor, req *adminv1.SetMemberRoleRequest) (*adminv1.SetMemberRoleResponse, error) {
	t, ctx, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	role, err := roleFromProto(req.GetRole(), "")
	if err != nil {
		return nil, err
	}
	if role == "" {
		return nil, domainerr.New(domainerr.Invalid, "name the new role: MEMBER_ROLE_OWNER, _ADMIN, _MEMBER or _VIEWER")
	}
	if err := a.mayGrant(role); err != nil {
		return nil, err
	}
	var m *ent.Member
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if err := quota.Lock(ctx, tx, t.ID); err != nil {
			return err
		}
		if m, err = managedMember(ctx, tx.Client(), t, req.GetHandle(), false); err != nil {
			return err
		}
		if err := a.mayActOn(m, "change the role of"); err != nil {
			return err
		}
		if err := tenancy.CheckRole(m.Handle, m.Kind, role); err != nil {
			return err
		}
		if m.Role == member.RoleOwner && role != member.RoleOwner {
			if err := keepAnOwner(ctx, tx, t, m, "demoted"); err != nil {
				return err
			}
		}
		sponsor := m.Edges.Sponsor
		if m, err = tx.Member.UpdateOne(m).SetRole(role).Save(ctx); err != nil {
			return err
		}
		m.Edges.Sponsor = sponsor
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.toolsChanged(ctx, t.Slug, m.ID, "The new role"); err != nil {
		return nil, err
	}
	return &adminv1.SetMemberRoleResponse{Member: memberToProto(m)}, nil
}

// RemoveMember implements adminv1.AdminServiceServer.
func (s *Service) RemoveMember(ctx context.Context, req *adminv1.RemoveMemberRequest) (*adminv1.RemoveMemberResponse, error) {
	return call(ctx, s, req, s.removeMember)
}

func (s *Service) removeMember(ctx context.Context, a actor, req *adminv1.RemoveMemberRequest) (*adminv1.RemoveMemberResponse, error) {
	t, ctx, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	var m *ent.Member
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if err := quota.Lock(ctx, tx, t.ID); err != nil {
			return err
		}
		if m, err = managedMember(ctx, tx.Client(), t, req.GetHandle(), true); err != nil {
			return err
		}
		if err := a.mayActOn(m, "remove"); err != nil {
			return err
		}
		if m.RemovedAt != nil {
			return nil // removed already: only the revocation is repeated
		}
		if err := s.mayRemove(ctx, tx, t, m); err != nil {
			return err
		}
		sponsor := m.Edges.Sponsor
		if m, err = tx.Member.UpdateOne(m).SetRemovedAt(s.now()).Save(ctx); err != nil {
			return err
		}
		m.Edges.Sponsor = sponsor
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The member is refused from here on (the access resolver reads
	// removed_at); revoking their tokens makes front doors refuse them
	// too, before any call reaches a worker.
	n, err := s.tokens.RevokeMember(ctx, t.Slug, m.ID)
	if err != nil {
		return nil, err
	}
	if err := s.toolsChanged(ctx, t.Slug, m.ID, "The removal"); err != nil {
		return nil, err
	}
	return &adminv1.RemoveMemberResponse{Member: memberToProto(m), RevokedTokens: int32(n)}, nil
}

// mayRemove refuses removing the last owner, or a person who still
// sponsors assistants: every current assistant has a current sponsor.
func (s *Service) mayRemove(ctx context.Context, tx *ent.Tx, t *ent.Tenant, m *ent.Member) error {
	if m.Role == member.RoleOwner {
		if err := keepAnOwner(ctx, tx, t, m, "removed"); err != nil {
			return err
		}
	}
	sponsored, err := tx.Member.Query().
		Where(member.TenantID(t.ID), member.SponsorID(m.ID), member.RemovedAtIsNil()).
		Order(ent.Asc(member.FieldID)).Select(member.FieldHandle).Strings(ctx)
	if err != nil || len(sponsored) == 0 {
		return err
	}
	return domainerr.New(domainerr.Conflict, "%s sponsors %s: remove %s first, since every assistant needs a sponsor",
		m.Handle, strings.Join(sponsored, ", "), them(len(sponsored)))
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// keepAnOwner refuses to take the owner role from m when m is the last
// current owner of t. Callers hold the tenant's lock (quota.Lock), so two
// owners demoting each other at once cannot both succeed.
func keepAnOwner(ctx context.Context, tx *ent.Tx, t *ent.Tenant, m *ent.Member, what string) error {
	n, err := tx.Member.Query().
		Where(member.TenantID(t.ID), member.RoleEQ(member.RoleOwner), member.RemovedAtIsNil()).Count(ctx)
	if err != nil {
		return err
	}
	if n <= 1 {
		return domainerr.New(domainerr.Conflict,
			"%s is the last owner of %s and cannot be %s: make another member owner first", m.Handle, t.Slug, what)
	}
	return nil
}

package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
)

// membersQuery is the query digest of members_list, which has no filters.
var membersQuery = cursor.Query("removed:no", "sort:handle")

// ListMembers lists the members of the caller's tenant who are not
// removed, by handle, a page at a time.
func (s *Service) ListMembers(ctx context.Context, req *taskwirev1.ListMembersRequest) (*taskwirev1.ListMembersResponse, error) {
	return call(ctx, s, req, s.listMembers)
}

func (s *Service) listMembers(ctx context.Context, a actor, req *taskwirev1.ListMembersRequest) (*taskwirev1.ListMembersResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	pos, err := s.cursors.Open(req.GetCursor(), a.tenant.ID, "members", membersQuery, 1)
	if err != nil {
		return nil, err
	}
	where := []predicate.Member{member.TenantID(a.tenant.ID), member.RemovedAtIsNil()}
	if pos != nil {
		where = append(where, member.HandleGT(pos[0]))
	}
	ms, err := s.client.Member.Query().Where(where...).
		Order(ent.Asc(member.FieldHandle)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListMembersResponse{}
	if len(ms) > limit {
		ms = ms[:limit]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, "members", membersQuery, ms[limit-1].Handle)
	}
	// Removed sponsors included: an assistant stays answerable to
	// whoever sponsored it.
	sponsors := names{members: map[int]*ent.Member{}}
	var ids []int
	for _, m := range ms {
		if m.SponsorID != nil {
			ids = append(ids, *m.SponsorID)
		}
	}
	if err := sponsors.addMembers(ctx, s.client, a, ids); err != nil {
		return nil, err
	}
	for _, m := range ms {
		p := memberProto(m)
		if m.SponsorID != nil {
			p.Sponsor = sponsors.handle(*m.SponsorID)
		}
		resp.Items = append(resp.Items, p)
	}
	return resp, nil
}

// memberProto converts a member for a response, without its sponsor.
func memberProto(m *ent.Member) *taskwirev1.Member {
	return &taskwirev1.Member{Handle: m.Handle, DisplayName: m.DisplayName, Kind: memberKinds[m.Kind], Role: memberRoles[m.Role]}
}

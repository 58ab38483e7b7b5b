package sessions

import (
	"context"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
)

// memberships returns the members that sign in as account: those naming
// it and not removed, with their tenants, oldest tenant first.
func memberships(ctx context.Context, c *ent.Client, account int) ([]*ent.Member, error) {
	return c.Member.Query().
		Where(member.AccountID(account), member.RemovedAtIsNil()).
		WithTenant().
		Order(member.ByTenantID(), member.ByID()).
		All(system(ctx))
}

// membershipsToProto describes members for the console.
func membershipsToProto(ms []*ent.Member) []*taskwirev1.Membership {
	out := make([]*taskwirev1.Membership, 0, len(ms))
	for _, m := range ms {
		t := m.Edges.Tenant
		out = append(out, &taskwirev1.Membership{
			Tenant: t.Slug, TenantName: t.Name,
			MemberId: int64(m.ID), Handle: m.Handle, DisplayName: m.DisplayName,
			Role: roleToProto(m.Role),
		})
	}
	return out
}

// roleToProto is the enum value named after r (MEMBER_ROLE_OWNER …).
func roleToProto(r member.Role) taskwirev1.MemberRole {
	return taskwirev1.MemberRole(taskwirev1.MemberRole_value["MEMBER_ROLE_"+strings.ToUpper(string(r))])
}

package oauth

import (
	"context"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
	"github.com/taskwire/taskwire/internal/ent/oauthgrant"
	"github.com/taskwire/taskwire/internal/ent/tenant"
)

// ListGrants implements taskwirev1.OAuthServiceServer. Only live grants
// are listed: a revoked or expired one can do nothing, and the audit log
// keeps its story.
func (s *Service) ListGrants(ctx context.Context, req *taskwirev1.ListGrantsRequest) (*taskwirev1.ListGrantsResponse, error) {
	resp, err := s.listGrants(system(ctx), req)
	return done(ctx, resp, err)
}

func (s *Service) listGrants(ctx context.Context, req *taskwirev1.ListGrantsRequest) (*taskwirev1.ListGrantsResponse, error) {
	sess, err := s.person(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	account := int(sess.GetAccount().GetId())
	q := s.client.OAuthGrant.Query().Where(oauthgrant.RevokedAtIsNil(), oauthgrant.ExpiresAtGT(s.now()))
	if req.GetTenant() == "" {
		q.Where(oauthgrant.AccountID(account))
	} else {
		m := membershipIn(sess, req.GetTenant())
		if m == nil {
			return nil, domainerr.New(domainerr.PermissionDenied, "You are no member of tenant %q: list the grants of one of your tenants.", req.GetTenant())
		}
		q.Where(oauthgrant.HasTenantWith(tenant.Slug(req.GetTenant())))
		if !manages(m) {
			q.Where(oauthgrant.AccountID(account))
		}
	}
	rows, err := q.Order(ent.Desc(oauthgrant.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.grantsToProto(ctx, rows)
	return &taskwirev1.ListGrantsResponse{Grants: out}, err
}

// RevokeGrant implements taskwirev1.OAuthServiceServer.
func (s *Service) RevokeGrant(ctx context.Context, req *taskwirev1.RevokeGrantRequest) (*taskwirev1.RevokeGrantResponse, error) {
	resp, err := s.revokeGrantOf(system(ctx), req)
	return done(ctx, resp, err)
}

func (s *Service) revokeGrantOf(ctx context.Context, req *taskwirev1.RevokeGrantRequest) (*taskwirev1.RevokeGrantResponse, error) {
	sess, err := s.person(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	g, err := s.client.OAuthGrant.Query().Where(oauthgrant.ID(int(req.GetId()))).WithTenant().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.Wrap(domainerr.NotFound, err, "There is no grant %d: reload the page to see the grants there are.", req.GetId())
	}
	if err != nil {
		return nil, err
	}
	m := membershipIn(sess, g.Edges.Tenant.Slug)
	if m == nil || (int(sess.GetAccount().GetId()) != g.AccountID && !manages(m)) {
		return nil, domainerr.New(domainerr.PermissionDenied,
			"Only the person who granted it, or an owner or admin of its tenant, may revoke this grant: ask one of them.")
	}
	by, err := s.client.Member.Query().Where(member.ID(int(m.GetMemberId()))).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.revokeGrant(ctx, g, "revoked by "+by.Handle, by); err != nil {
		return nil, err
	}
	out, err := s.grantsToProto(ctx, []*ent.OAuthGrant{g})
	if err != nil {
		return nil, err
	}
	return &taskwirev1.RevokeGrantResponse{Grant: out[0]}, nil
}

// person is the account and memberships of the console session cookie
// names: Unauthenticated when it is not live, and the console then sends
// the person to sign in.
func (s *Service) person(ctx context.Context, cookie string) (*taskwirev1.CheckSessionResponse, error) {
	return s.sessions.CheckSession(ctx, &taskwirev1.CheckSessionRequest{Cookie: cookie})
}

// membershipIn is the session's membership in the tenant with slug, nil
// when it has none.
func membershipIn(sess *taskwirev1.CheckSessionResponse, slug string) *taskwirev1.Membership {
	for _, m := range sess.GetMemberships() {
		if m.GetTenant() == slug {
			return m
		}
	}
	return nil
}

// manages reports whether m is an owner or admin, who sees and revokes
// every grant of the tenant.
func manages(m *taskwirev1.Membership) bool {
	r := roleName(m.GetRole())
	return r == authz.RoleOwner || r == authz.RoleAdmin
}

// grantsToProto describes rows for the console, with their clients,
// tenants and members looked up once for all.
func (s *Service) grantsToProto(ctx context.Context, rows []*ent.OAuthGrant) ([]*taskwirev1.Grant, error) {
	var clientIDs []string
	var memberIDs, tenantIDs []int
	for _, g := range rows {
		clientIDs = append(clientIDs, g.ClientID)
		memberIDs = append(memberIDs, g.MemberID, g.PersonID)
		tenantIDs = append(tenantIDs, g.TenantID)
	}
	clients, err := s.client.OAuthClient.Query().Where(oauthclient.ClientIDIn(clientIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	members, err := s.client.Member.Query().Where(member.IDIn(memberIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	tenants, err := s.client.Tenant.Query().Where(tenant.IDIn(tenantIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*taskwirev1.Grant, 0, len(rows))
	for _, g := range rows {
		out = append(out, s.grantToProto(g, clients, members, tenants))
	}
	return out, nil
}

func (s *Service) grantToProto(g *ent.OAuthGrant, clients []*ent.OAuthClient, members []*ent.Member, tenants []*ent.Tenant) *taskwirev1.Grant {
	out := &taskwirev1.Grant{
		Id: int64(g.ID), ClientId: g.ClientID, ClientName: g.ClientID, Scopes: g.Scopes,
		CreateTime: timestamppb.New(g.CreatedAt), ExpireTime: timestamppb.New(g.ExpiresAt),
		RedirectHost: redirectHost(g.RedirectURI),
	}
	if c, ok := s.configured[g.ClientID]; ok {
		out.ClientName, out.ClientKind = c.name, c.kind
	} else if i := slices.IndexFunc(clients, func(c *ent.OAuthClient) bool { return c.ClientID == g.ClientID }); i >= 0 {
		out.ClientName, out.ClientKind = clients[i].Name, string(clients[i].Kind)
	}
	for _, m := range members {
		switch m.ID {
		case g.MemberID:
			out.AssistantHandle = m.Handle
		case g.PersonID:
			out.PersonHandle = m.Handle
		}
	}
	if i := slices.IndexFunc(tenants, func(t *ent.Tenant) bool { return t.ID == g.TenantID }); i >= 0 {
		out.Tenant = tenants[i].Slug
	}
	if g.LastUsedAt != nil {
		out.LastUseTime = timestamppb.New(*g.LastUsedAt)
	}
	if g.RevokedAt != nil {
		out.RevokeTime = timestamppb.New(*g.RevokedAt)
	}
	return out
}

package admin

import (
	"context"
	"strconv"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/tokens"
)

// CreateTenant implements adminv1.AdminServiceServer.
func (s *Service) CreateTenant(ctx context.Context, req *adminv1.CreateTenantRequest) (*adminv1.CreateTenantResponse, error) {
	return call(ctx, s, req, s.createTenant)
}

func (s *Service) createTenant(ctx context.Context, a actor, req *adminv1.CreateTenantRequest) (*adminv1.CreateTenantResponse, error) {
	if err := a.operatorOnly("create tenants"); err != nil {
		return nil, err
	}
	cfg := tenancy.Config{
		TenantSlug: req.GetSlug(), TenantName: orDefault(req.GetName(), req.GetSlug()),
		OwnerHandle: req.GetOwnerHandle(), OwnerName: orDefault(req.GetOwnerName(), req.GetOwnerHandle()),
		BoardSlug: "main", BoardName: "Main",
	}
	cfg, err := cfg.Checked()
	if err != nil {
		return nil, err
	}
	ttl, err := ttlFromProto(req.GetOwnerTokenTtl(), "owner_token_ttl", s.tokens.MaxTTL())
	if err != nil {
		return nil, err
	}
	if err := s.canMint(); err != nil {
		return nil, err
	}
	t, owner, err := s.insertTenant(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The tenant is committed before its first token is minted: should
	// minting fail, an operator can still CreateToken for the owner.
	raw, info, err := s.tokens.Create(ctx, s.issuer, tokens.CreateRequest{
		Tenant: t.Slug, Member: owner.ID, Scopes: authz.AllScopes, TTL: ttl, Label: "first owner token",
	})
	if err != nil {
		return nil, err
	}
	return &adminv1.CreateTenantResponse{
		Tenant: tenantToProto(t), Owner: memberToProto(owner),
		OwnerToken: raw, OwnerTokenInfo: tokenToProto(info, s.clock()),
	}, nil
}

// insertTenant creates the tenant of cfg with its owner and default board,
// in one transaction. A taken slug is a Conflict.
func (s *Service) insertTenant(ctx context.Context, cfg tenancy.Config) (*ent.Tenant, *ent.Member, error) {
	var t *ent.Tenant
	var owner *ent.Member
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		var err error
		if t, err = tx.Tenant.Create().SetSlug(cfg.TenantSlug).SetName(cfg.TenantName).Save(ctx); err != nil {
			return err
		}
		scoped := tenantscope.NewContext(ctx, t.ID)
		owner, err = tx.Member.Create().SetTenantID(t.ID).
			SetHandle(cfg.OwnerHandle).SetDisplayName(cfg.OwnerName).
			SetKind(member.KindHuman).SetRole(member.RoleOwner).Save(scoped)
		if err != nil {
			return err
		}
		return tx.Board.Create().SetTenantID(t.ID).
			SetSlug(cfg.BoardSlug).SetName(cfg.BoardName).SetIsDefault(true).Exec(scoped)
	})
	if ent.IsConstraintError(err) {
		return nil, nil, domainerr.Wrap(domainerr.Conflict, err,
			"a tenant %q exists already: choose another slug", cfg.TenantSlug)
	}
	return t, owner, err
}

// canMint refuses minting on a worker without the signing key.
func (s *Service) canMint() error {
	if s.issuer == nil {
		return domainerr.New(domainerr.Unavailable, "this worker holds no signing key, so it cannot mint tokens: try again, or ask the operators to give workers the key")
	}
	return nil
}

// GetTenant implements adminv1.AdminServiceServer.
func (s *Service) GetTenant(ctx context.Context, req *adminv1.GetTenantRequest) (*adminv1.GetTenantResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, a actor, req *adminv1.GetTenantRequest) (*adminv1.GetTenantResponse, error) {
		t, _, err := s.manage(ctx, a, req.GetTenant())
		if err != nil {
			return nil, err
		}
		return &adminv1.GetTenantResponse{Tenant: tenantToProto(t)}, nil
	})
}

// ListTenants implements adminv1.AdminServiceServer.
func (s *Service) ListTenants(ctx context.Context, req *adminv1.ListTenantsRequest) (*adminv1.ListTenantsResponse, error) {
	return call(ctx, s, req, s.listTenants)
}

func (s *Service) listTenants(ctx context.Context, a actor, req *adminv1.ListTenantsRequest) (*adminv1.ListTenantsResponse, error) {
	if err := a.operatorOnly("list tenants"); err != nil {
		return nil, err
	}
	size, after, err := idPage(req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, err
	}
	rows, err := s.client.Tenant.Query().Where(tenant.IDGT(after)).
		Order(ent.Asc(tenant.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &adminv1.ListTenantsResponse{}
	rows, resp.NextPageToken = idPageEnd(rows, size, func(t *ent.Tenant) int { return t.ID })
	counts, err := s.memberCounts(ctx, rows)
	if err != nil {
		return nil, err
	}
	for _, t := range rows {
		p := tenantToProto(t)
		p.MemberCount = int32(counts[t.ID])
		resp.Tenants = append(resp.Tenants, p)
	}
	return resp, nil
}

// memberCounts counts the current members of each tenant of rows, in one
// query across them (operators only: it reads every tenant's members).
func (s *Service) memberCounts(ctx context.Context, rows []*ent.Tenant) (map[int]int, error) {
	ids := make([]int, len(rows))
	for i, t := range rows {
		ids[i] = t.ID
	}
	var counts []struct {
		TenantID int `json:"tenant_id"`
		Count    int `json:"count"`
	}
	err := s.client.Member.Query().Where(member.TenantIDIn(ids...), member.RemovedAtIsNil()).
		GroupBy(member.FieldTenantID).Aggregate(ent.Count()).Scan(privacy.DecisionContext(ctx, privacy.Allow), &counts)
	if err != nil {
		return nil, err
	}
	out := make(map[int]int, len(counts))
	for _, c := range counts {
		out[c.TenantID] = c.Count
	}
	return out, nil
}

// idPage reads a page of rows ordered by id: its size and the id after
// which it starts.
func idPage(n int32, token string) (size, after int, err error) {
	if size, err = pageSize(n); err != nil || token == "" {
		return size, 0, err
	}
	key, err := decodePage(token)
	if err != nil {
		return 0, 0, err
	}
	if after, err = strconv.Atoi(key); err != nil || after < 0 {
		return 0, 0, badPage()
	}
	return size, after, nil
}

// idPageEnd ends a page of rows ordered by id, read with one row more
// than size: it cuts rows to size and returns the token of the next page
// (what idPage reads back), "" when no row was left over.
func idPageEnd[T any](rows []T, size int, id func(T) int) ([]T, string) {
	if len(rows) <= size {
		return rows, ""
	}
	return rows[:size], encodePage(strconv.Itoa(id(rows[size-1])))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

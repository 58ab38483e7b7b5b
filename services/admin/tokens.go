package admin

import (
	"context"
	"slices"
	"strings"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/services/tokens"
)

// CreateToken implements adminv1.AdminServiceServer.
func (s *Service) CreateToken(ctx context.Context, req *adminv1.CreateTokenRequest) (*adminv1.CreateTokenResponse, error) {
	return call(ctx, s, req, s.createToken)
}

func (s *Service) createToken(ctx context.Context, a actor, req *adminv1.CreateTokenRequest) (*adminv1.CreateTokenResponse, error) {
	t, ctx, err := s.serve(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	if err := a.mayMintAdmin(req.GetAdmin()); err != nil {
		return nil, err
	}
	if err := checkGrant(req); err != nil {
		return nil, err
	}
	toolsets, err := authz.NormalToolsets(req.GetToolsets())
	if err != nil {
		return nil, domainerr.New(domainerr.Invalid, "%s, or none for every toolset", err)
	}
	ttl, err := ttlFromProto(req.GetTtl(), "ttl", s.tokens.MaxTTL())
	if err != nil {
		return nil, err
	}
	m, err := managedMember(ctx, s.client, t, req.GetMember(), false)
	if err != nil {
		return nil, err
	}
	if err := a.mayServe(m, "mint tokens for"); err != nil {
		return nil, err
	}
	if err := a.mayActOn(m, "mint tokens for"); err != nil {
		return nil, err
	}
	if err := s.canMint(); err != nil {
		return nil, err
	}
	raw, info, err := s.tokens.Create(ctx, s.issuer, tokens.CreateRequest{
		Tenant: t.Slug, Member: m.ID, Scopes: req.GetScopes(), Toolsets: toolsets, TTL: ttl, Label: req.GetLabel(), Admin: req.GetAdmin(),
	})
	if err != nil {
		return nil, err
	}
	return &adminv1.CreateTokenResponse{Token: raw, Info: tokenToProto(info, s.clock())}, nil
}

// checkGrant refuses what a token of req's kind cannot carry: an admin
// token has no scopes or toolsets, an MCP token at least one scope.
func checkGrant(req *adminv1.CreateTokenRequest) error {
	if req.GetAdmin() {
		if len(req.GetScopes()) > 0 || len(req.GetToolsets()) > 0 {
			return domainerr.New(domainerr.Invalid, "an admin token has no scopes or toolsets (the member's role says what it may do): leave them out")
		}
		return nil
	}
	return checkScopes(req.GetScopes())
}

// checkScopes refuses an empty or unknown scope list in words the caller
// can act on.
func checkScopes(scopes []string) error {
	if len(scopes) == 0 {
		return domainerr.New(domainerr.Invalid, "name at least one scope: %s", strings.Join(authz.AllScopes, ", "))
	}
	for _, sc := range scopes {
		if !authz.Valid(sc) {
			return domainerr.New(domainerr.Invalid, "scope %q is not valid: use %s", sc, strings.Join(authz.AllScopes, ", "))
		}
	}
	return nil
}

// ListTokens implements adminv1.AdminServiceServer.
func (s *Service) ListTokens(ctx context.Context, req *adminv1.ListTokensRequest) (*adminv1.ListTokensResponse, error) {
	return call(ctx, s, req, s.listTokens)
}

func (s *Service) listTokens(ctx context.Context, a actor, req *adminv1.ListTokensRequest) (*adminv1.ListTokensResponse, error) {
	t, ctx, err := s.serve(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	size, err := pageSize(req.GetPageSize())
	if err != nil {
		return nil, err
	}
	memberID := 0
	if req.GetMember() != "" {
		m, err := managedMember(ctx, s.client, t, req.GetMember(), true)
		if err != nil {
			return nil, err
		}
		if err := a.mayServe(m, "list the tokens of"); err != nil {
			return nil, err
		}
		memberID = m.ID
	}
	list, err := s.tokens.List(ctx, t.Slug, memberID)
	if err != nil {
		return nil, err
	}
	if list, err = s.onlyTheirs(ctx, a, t, list); err != nil {
		return nil, err
	}
	// Pages go by token id: the list is one tenant's, read whole anyway.
	if req.GetPageToken() != "" {
		after, err := decodePage(req.GetPageToken())
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(list, func(i tokens.Info) bool { return i.ID == after })
		if i < 0 {
			return nil, badPage()
		}
		list = list[i+1:]
	}
	resp := &adminv1.ListTokensResponse{}
	if len(list) > size {
		list = list[:size]
		resp.NextPageToken = encodePage(list[size-1].ID)
	}
	now := s.clock()
	for _, i := range list {
		resp.Tokens = append(resp.Tokens, tokenToProto(i, now))
	}
	return resp, nil
}

// RevokeToken implements adminv1.AdminServiceServer.
func (s *Service) RevokeToken(ctx context.Context, req *adminv1.RevokeTokenRequest) (*adminv1.RevokeTokenResponse, error) {
	return call(ctx, s, req, s.revokeToken)
}

func (s *Service) revokeToken(ctx context.Context, a actor, req *adminv1.RevokeTokenRequest) (*adminv1.RevokeTokenResponse, error) {
	t, ctx, err := s.serve(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, domainerr.New(domainerr.Invalid, "name the token by its id, as ListTokens shows it")
	}
	row, err := s.client.Token.Query().Where(token.TenantID(t.ID), token.Jti(req.GetId())).WithMember().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.Wrap(domainerr.NotFound, err, "no token %q in tenant %s", req.GetId(), t.Slug)
	}
	if err != nil {
		return nil, err
	}
	if err := a.mayServe(row.Edges.Member, "revoke tokens of"); err != nil {
		return nil, err
	}
	if err := a.mayActOn(row.Edges.Member, "revoke tokens of"); err != nil {
		return nil, err
	}
	if err := s.tokens.Revoke(ctx, t.Slug, row.Jti); err != nil {
		return nil, err
	}
	return &adminv1.RevokeTokenResponse{}, nil
}

// RevokeMemberTokens implements adminv1.AdminServiceServer.
func (s *Service) RevokeMemberTokens(ctx context.Context, req *adminv1.RevokeMemberTokensRequest) (*adminv1.RevokeMemberTokensResponse, error) {
	return call(ctx, s, req, s.revokeMemberTokens)
}

func (s *Service) revokeMemberTokens(ctx context.Context, a actor, req *adminv1.RevokeMemberTokensRequest) (*adminv1.RevokeMemberTokensResponse, error) {
	t, ctx, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	m, err := managedMember(ctx, s.client, t, req.GetMember(), true)
	if err != nil {
		return nil, err
	}
	if err := a.mayActOn(m, "revoke tokens of"); err != nil {
		return nil, err
	}
	n, err := s.tokens.RevokeMember(ctx, t.Slug, m.ID)
	if err != nil {
		return nil, err
	}
	return &adminv1.RevokeMemberTokensResponse{RevokedTokens: int32(n)}, nil
}

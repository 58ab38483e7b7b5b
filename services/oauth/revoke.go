package oauth

import (
	"context"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthgrant"
	"github.com/taskwire/taskwire/internal/ent/oauthrefreshtoken"
	"github.com/taskwire/taskwire/internal/ent/token"
)

// Revoke implements taskwirev1.OAuthServiceServer.
func (s *Service) Revoke(ctx context.Context, req *taskwirev1.RevokeRequest) (*taskwirev1.RevokeResponse, error) {
	err := s.revoke(system(ctx), req)
	if r := asRefusal(err); r != nil {
		return &taskwirev1.RevokeResponse{Error: r}, nil
	}
	return done(ctx, &taskwirev1.RevokeResponse{}, err)
}

// revoke revokes the grant of the refresh or access token req names, if
// it was issued to req's client. An unknown token is no error (RFC 7009
// §2.2): the client wanted it gone, and it is.
func (s *Service) revoke(ctx context.Context, req *taskwirev1.RevokeRequest) error {
	c, err := s.authenticate(ctx, req.GetClientId(), req.GetClientSecret())
	if err != nil {
		return err
	}
	if req.GetToken() == "" {
		return refuse(errInvalidRequest, "The request has no token: send the token to revoke.")
	}
	g, err := s.grantOfToken(ctx, req.GetToken())
	if err != nil || g == nil {
		return err
	}
	if g.ClientID != c.id {
		return refuse(errUnauthorizedClient, "This token was issued to another client: a client may revoke only its own.")
	}
	return s.revokeGrant(ctx, g, "revoked by the client", nil)
}

// grantOfToken returns the grant a refresh token or access token was
// issued under, nil when none is known. Of an access token only its jti
// is read, without verifying it: it only names the record, and revoking
// is what its holder asked for.
func (s *Service) grantOfToken(ctx context.Context, raw string) (*ent.OAuthGrant, error) {
	if strings.HasPrefix(raw, refreshPrefix) {
		rt, err := s.client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.Hash(hashOf(raw))).WithGrant().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return rt.Edges.Grant, nil
	}
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &claims); err != nil || claims.ID == "" {
		return nil, nil
	}
	row, err := s.client.Token.Query().Where(token.Jti(claims.ID), token.GrantIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.client.OAuthGrant.Query().Where(oauthgrant.ID(*row.GrantID)).Only(ctx)
}

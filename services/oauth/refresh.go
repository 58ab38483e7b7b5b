package oauth

import (
	"context"
	"slices"
	"strings"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthrefreshtoken"
)

// refresh is the refresh_token grant: a refresh token, once, by its
// client, for the next access token and refresh token. A used one
// presented again was copied, so the grant is revoked.
func (s *Service) refresh(ctx context.Context, c *oauthClient, req *taskwirev1.TokenRequest) (*taskwirev1.TokenResponse, error) {
	if req.GetRefreshToken() == "" {
		return nil, refuse(errInvalidRequest, "The request has no refresh_token: send it.")
	}
	rt, err := s.client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.Hash(hashOf(req.GetRefreshToken()))).WithGrant().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, refuse(errInvalidGrant, "This refresh token is not known: sign in again.")
	}
	if err != nil {
		return nil, err
	}
	g := rt.Edges.Grant
	if g.ClientID != c.id {
		return nil, refuse(errInvalidGrant, "This refresh token was issued to another client: use your own.")
	}
	if err := s.liveGrant(g); err != nil {
		return nil, err
	}
	if rt.UsedAt != nil {
		return nil, s.refreshReused(ctx, g)
	}
	if !s.now().Before(rt.ExpiresAt) {
		return nil, refuse(errInvalidGrant, "This refresh token expired, unused for %s or at the end of its authorization: sign in again.", s.limits.RefreshIdle.Round(time.Hour))
	}
	scopes, err := narrowed(g.Scopes, req.GetScope())
	if err != nil {
		return nil, err
	}
	if req.GetResource() != "" && strings.TrimSuffix(req.GetResource(), "/") != strings.TrimSuffix(g.Resource, "/") {
		return nil, refuse(errInvalidTarget, "The resource %q is not the one this authorization is for (%s): send that one.", printable(req.GetResource()), g.Resource)
	}
	n, err := s.client.OAuthRefreshToken.Update().Where(oauthrefreshtoken.ID(rt.ID), oauthrefreshtoken.UsedAtIsNil()).
		SetUsedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, s.refreshReused(ctx, g)
	}
	return s.issue(ctx, c, g, scopes)
}

// narrowed is the scopes a refresh asks for: the grant's when scope is
// empty, else scope, which may narrow them but never widen them.
func narrowed(granted []string, scope string) ([]string, error) {
	if strings.TrimSpace(scope) == "" {
		return granted, nil
	}
	asked, err := parseScope(scope)
	if err != nil {
		return nil, err
	}
	for _, sc := range asked {
		if !slices.Contains(granted, sc) {
			return nil, refuse(errInvalidScope, "The scope %q was not granted (granted: %s): ask for those or fewer, or sign in again.", sc, strings.Join(granted, " "))
		}
	}
	return asked, nil
}

// refreshReused answers a refresh token presented again by revoking its
// grant: either the client or a thief holds a copy, and which cannot be
// told.
func (s *Service) refreshReused(ctx context.Context, g *ent.OAuthGrant) error {
	s.log.WarnContext(ctx, "security: a refresh token was used twice; its grant is revoked", "grant", g.ID, "client_id", g.ClientID)
	if err := s.revokeGrant(ctx, g, "a refresh token was used twice", nil); err != nil {
		return err
	}
	return refuse(errInvalidGrant, "This refresh token was used already; as it may have been copied, the authorization is revoked: sign in again.")
}

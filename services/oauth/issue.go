package oauth

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
	"github.com/taskwire/taskwire/internal/ent/oauthgrant"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/services/tokens"
)

// refreshPrefix starts every refresh token, so that one pasted where it
// does not belong (or found in a log) is recognised.
const refreshPrefix = "twr_"

// issue mints an access token for the assistant of g with scopes, and a
// refresh token to get the next one, and notes that g was used.
func (s *Service) issue(ctx context.Context, c *oauthClient, g *ent.OAuthGrant, scopes []string) (*taskwirev1.TokenResponse, error) {
	t, err := s.client.Tenant.Query().Where(tenant.ID(g.TenantID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.checkMembers(ctx, g); err != nil {
		return nil, err
	}
	access, _, err := s.tokens.Create(ctx, s.issuer, tokens.CreateRequest{
		Tenant: t.Slug, Member: g.MemberID, Scopes: scopes, TTL: s.limits.AccessTTL,
		Label: tokenLabel(c.name), GrantID: g.ID,
	})
	if err != nil {
		return nil, err
	}
	refresh := refreshPrefix + randomToken(32)
	now := s.now()
	err = s.client.OAuthRefreshToken.Create().SetHash(hashOf(refresh)).SetGrantID(g.ID).SetCreatedAt(now).
		SetExpiresAt(earlier(now.Add(s.limits.RefreshIdle), g.ExpiresAt)).Exec(ctx)
	if err != nil {
		return nil, err
	}
	s.used(ctx, g)
	return &taskwirev1.TokenResponse{
		AccessToken: access, ExpiresIn: int64(s.limits.AccessTTL.Seconds()),
		RefreshToken: refresh, Scope: strings.Join(scopes, " "),
	}, nil
}

// checkMembers refuses tokens for a grant whose person or assistant was
// removed from the tenant: neither may act there any more.
func (s *Service) checkMembers(ctx context.Context, g *ent.OAuthGrant) error {
	n, err := s.client.Member.Query().Where(member.IDIn(g.PersonID, g.MemberID), member.RemovedAtIsNil()).Count(ctx)
	if err != nil {
		return err
	}
	if n < 2 {
		return refuse(errInvalidGrant, "You or the assistant of this authorization were removed from the tenant: ask an owner or admin, then sign in again.")
	}
	return nil
}

// used notes the use of g and its client. A failure is logged, not
// answered: the tokens are issued either way.
func (s *Service) used(ctx context.Context, g *ent.OAuthGrant) {
	now := s.now()
	err := s.client.OAuthGrant.Update().Where(oauthgrant.ID(g.ID)).SetLastUsedAt(now).Exec(ctx)
	if err == nil {
		err = s.client.OAuthClient.Update().Where(oauthclient.ClientID(g.ClientID)).SetLastUsedAt(now).Exec(ctx)
	}
	if err != nil {
		s.log.WarnContext(ctx, "oauth: cannot note a grant's use", "grant", g.ID, "err", err)
	}
}

// tokenLabel labels the access tokens of a client named name, as the
// tokens page lists them.
func tokenLabel(name string) string {
	if utf8.RuneCountInString(name) > tokens.MaxLabelLen-7 {
		name = string([]rune(name)[:tokens.MaxLabelLen-7])
	}
	return "OAuth: " + name
}

// earlier is the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

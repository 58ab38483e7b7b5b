package oauth

import (
	"context"
	"time"

	"github.com/taskwire/taskwire/internal/ent/oauthclient"
	"github.com/taskwire/taskwire/internal/ent/oauthcode"
	"github.com/taskwire/taskwire/internal/ent/oauthrefreshtoken"
)

// codeKept is how long a code is kept past its expiry: a code presented
// again within it is still known as reused (and revokes its grant).
const codeKept = 24 * time.Hour

// sweep deletes what can no longer be used: registrations no grant used
// within a day, codes a day past their expiry, and expired refresh
// tokens. It runs on registration and approval, which are what add rows,
// so no replica needs a timer; a failure is logged, not answered.
func (s *Service) sweep(ctx context.Context) {
	ctx = system(ctx)
	now := s.now()
	_, err := s.client.OAuthClient.Delete().Where(oauthclient.KindEQ(oauthclient.KindRegistered), oauthclient.ExpiresAtLT(now)).Exec(ctx)
	if err == nil {
		_, err = s.client.OAuthCode.Delete().Where(oauthcode.ExpiresAtLT(now.Add(-codeKept))).Exec(ctx)
	}
	if err == nil {
		_, err = s.client.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.ExpiresAtLT(now)).Exec(ctx)
	}
	if err != nil {
		s.log.WarnContext(ctx, "oauth: cannot delete expired registrations, codes and refresh tokens", "err", err)
	}
}

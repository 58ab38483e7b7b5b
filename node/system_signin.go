package node

import (
	"context"
	"time"

	"google.golang.org/grpc"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/sessions"
)

// firstSignInLink makes the owner's one-time link to the console, as a
// platform operator would through the admin API (CreateSignInLink): the
// person who started the first start is the owner, and has no password
// yet. It lives sessions.DefaultLinkTTL. The link made the owner's
// account, which becomes the first platform operator's.
func (s *System) firstSignInLink(ctx context.Context, tenant, owner string) (string, time.Time, error) {
	recorded, err := s.tokenStore()
	if err != nil {
		return "", time.Time{}, err
	}
	svc, err := admin.New(admin.Config{Client: s.DB, Tokens: recorded, Logger: s.log})
	if err != nil {
		return "", time.Time{}, err
	}
	resp, err := svc.CreateSignInLink(identity.NewOperatorContext(ctx), &adminv1.CreateSignInLinkRequest{Tenant: tenant, Handle: owner})
	if err != nil {
		return "", time.Time{}, err
	}
	if err := store.FirstOperator(ctx, s.DB, s.log); err != nil {
		return "", time.Time{}, err
	}
	return sessions.LinkURL(s.cfg.PublicURL, resp.GetSecret()), resp.GetExpireTime().AsTime(), nil
}

// WorkerConn is a connection to the system's worker as its front door
// has one: every call carries the internal key, and names a caller only
// when the call's metadata does (identity.AppendToOutgoing). It is for
// code in this process, such as tests calling SessionService as a front
// door does; the caller closes it.
func (s *System) WorkerConn() (*grpc.ClientConn, error) {
	return dialWorkers(s.worker.Addr(), s.internalKey)
}

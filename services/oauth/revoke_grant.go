package oauth

import (
	"context"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthgrant"
	"github.com/taskwire/taskwire/internal/ent/oauthrefreshtoken"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
)

// revokeGrant revokes g for why: its refresh tokens stop working, and its
// access tokens are revoked through the tokens store, which tells every
// front door at once. by is the member who revoked it, nil when the
// server did (a reused code or refresh token); the audit log of g's
// tenant records it either way. Revoking a revoked grant keeps its first
// reason and revokes its tokens again, so a failed broadcast can be
// retried.
func (s *Service) revokeGrant(ctx context.Context, g *ent.OAuthGrant, why string, by *ent.Member) error {
	ctx = system(ctx)
	now := s.now()
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		n, err := tx.OAuthGrant.Update().Where(oauthgrant.ID(g.ID), oauthgrant.RevokedAtIsNil()).
			SetRevokedAt(now).SetRevokedWhy(why).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		err = tx.OAuthRefreshToken.Update().Where(oauthrefreshtoken.GrantID(g.ID), oauthrefreshtoken.UsedAtIsNil()).
			SetUsedAt(now).Exec(ctx)
		if err != nil {
			return err
		}
		g.RevokedAt, g.RevokedWhy = &now, why
		return s.auditRevocation(ctx, tx, g, by)
	})
	if err != nil {
		return err
	}
	_, err = s.tokens.RevokeGrant(ctx, g.ID)
	return err
}

// auditRevocation writes the revocation of g by by (nil: the server,
// recorded as the assistant's) to the audit log of g's tenant in tx.
func (s *Service) auditRevocation(ctx context.Context, tx *ent.Tx, g *ent.OAuthGrant, by *ent.Member) error {
	t, err := tx.Tenant.Query().Where(tenant.ID(g.TenantID)).Only(ctx)
	if err != nil {
		return err
	}
	ev := audit.Event{
		OccurredAt: s.now(), Tenant: t.Slug, TenantID: t.ID, MemberID: g.MemberID,
		Method: MethodRevokeGrant, Targets: []string{g.ClientID, g.RevokedWhy}, Outcome: audit.OutcomeOK,
	}
	if by != nil {
		ev.MemberID, ev.Member, ev.Kind = by.ID, by.Handle, string(by.Kind)
	}
	return s.audit.RecordTx(ctx, tx, ev)
}

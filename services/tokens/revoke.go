package tokens

import (
	"context"
	"errors"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// expiryGrace is how long a revocation is kept past its token's expiry:
// longer than the leeway verifiers allow for clock skew, during which an
// expired token still verifies.
const expiryGrace = time.Minute

// Revoke revokes the token with id jti of the tenant with slug tenantSlug
// and tells every front door. A token of another tenant is not found, in
// the same words as one that never existed. Revoking a revoked token again
// keeps its revocation time and tells the front doors again, so a call
// that failed to tell them can simply be retried.
func (s *Store) Revoke(ctx context.Context, tenantSlug, jti string) error {
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return err
	}
	var row *ent.Token
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		row, err = tx.Token.Query().Where(token.TenantID(t.ID), token.Jti(jti)).Only(ctx)
		if ent.IsNotFound(err) {
			return domainerr.Wrap(domainerr.NotFound, err, "no token %q in tenant %s", jti, t.Slug)
		}
		if err != nil {
			return err
		}
		return tx.Token.Update().Where(token.ID(row.ID), token.RevokedAtIsNil()).
			SetRevokedAt(s.now()).Exec(ctx)
	})
	if err != nil {
		return store.DomainError(ctx, err)
	}
	return s.broadcast(events.Revocation{JTI: row.Jti, Expires: row.ExpiresAt.Unix()})
}

// RevokeMember revokes every live token of the member with id memberID in
// the tenant with slug tenantSlug, for example when the member is removed,
// and returns how many it revoked. Besides each token, it tells the front
// doors that all of the member's tokens issued before now are revoked, so
// they also refuse tokens they never heard of. Tokens minted afterwards are
// not affected. A member of another tenant is not found.
func (s *Store) RevokeMember(ctx context.Context, tenantSlug string, memberID int) (int, error) {
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return 0, err
	}
	now := s.now()
	var rows []*ent.Token
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if _, err := tenancy.MemberByID(ctx, tx.Client(), t, memberID); err != nil {
			return err
		}
		rows, err = tx.Token.Query().Where(token.TenantID(t.ID), token.MemberID(memberID),
			token.RevokedAtIsNil(), token.ExpiresAtGT(now.Add(-expiryGrace))).All(ctx)
		if err != nil || len(rows) == 0 {
			return err
		}
		ids := make([]int, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return tx.Token.Update().Where(token.IDIn(ids...)).SetRevokedAt(now).Exec(ctx)
	})
	if err != nil {
		return 0, store.DomainError(ctx, err)
	}
	return len(rows), s.broadcast(memberRevocations(t.Slug, memberID, now, s.maxTTL, rows)...)
}

// memberRevocations are the messages of RevokeMember: the member's entry,
// then each token it revoked. The entry covers tokens issued before the
// second of now (a token's iat has whole seconds); tokens minted earlier
// in that second are covered by their own message. It is kept as long as
// a token minted just before it may live (maxTTL), since the tokens it
// exists for were never recorded.
func memberRevocations(tenantSlug string, memberID int, now time.Time, maxTTL time.Duration, rows []*ent.Token) []events.Revocation {
	exp := now.Add(maxTTL)
	out := []events.Revocation{{}}
	for _, r := range rows {
		exp = later(exp, r.ExpiresAt)
		out = append(out, events.Revocation{JTI: r.Jti, Expires: r.ExpiresAt.Unix()})
	}
	out[0] = events.Revocation{Tenant: tenantSlug, Member: memberID, Before: now.Unix(), Expires: exp.Unix()}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// broadcast publishes revs to the front doors. The revocations are stored
// already: workers refuse the tokens whatever happens here. A failure is
// Unavailable, since repeating the revocation repeats the broadcast.
func (s *Store) broadcast(revs ...events.Revocation) error {
	if s.events == nil {
		return nil
	}
	var errs []error
	for _, r := range revs {
		if err := s.events.PublishRevocation(r); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		s.log.Error("tokens: broadcasting revocations failed", "err", err, "count", len(errs))
		return domainerr.Wrap(domainerr.Unavailable, err,
			"the revocation is stored and workers refuse the token, but the front doors could not be told at once: revoke again to retry")
	}
	return nil
}

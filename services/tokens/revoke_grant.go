package tokens

import (
	"context"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
)

// RevokeGrant revokes every live token issued under the OAuth grant with
// id grantID and tells every front door, as Revoke does for one token, so
// a revoked grant's access tokens are refused everywhere at once. It
// returns how many it revoked. Calling it again revokes nothing more and
// tells the front doors nothing: the grant's service revokes it once.
func (s *Store) RevokeGrant(ctx context.Context, grantID int) (int, error) {
	ctx = system(ctx)
	now := s.now()
	var rows []*ent.Token
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		var err error
		rows, err = tx.Token.Query().Where(token.GrantID(grantID),
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
	revs := make([]events.Revocation, len(rows))
	for i, r := range rows {
		revs[i] = events.Revocation{JTI: r.Jti, Expires: r.ExpiresAt.Unix()}
	}
	return len(rows), s.broadcast(revs...)
}

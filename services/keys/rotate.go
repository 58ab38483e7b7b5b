package keys

import (
	"context"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/signingkey"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/store"
)

// Rotate makes a new key the current signing key and retires the one
// before, which verifies until every token it may have signed expired
// (verifyUntil). It tells the other workers and the front doors, then
// reloads. A failure to tell them is logged, not returned: the rotation
// is stored, and they learn of it at their next reload.
func (r *Ring) Rotate(ctx context.Context) (Rotation, error) {
	k, err := authn.GenerateKey()
	if err != nil {
		return Rotation{}, err
	}
	rot, err := r.rotateTo(ctx, k)
	if err != nil {
		return Rotation{}, err
	}
	if err := r.Load(ctx); err != nil {
		return Rotation{}, err
	}
	if r.cfg.Events != nil {
		if err := r.cfg.Events.PublishKeysChanged(); err != nil {
			r.log.ErrorContext(ctx, "keys: telling the others of a rotation failed; they reload when NATS reconnects", "err", err)
		}
	}
	r.log.InfoContext(ctx, "keys: signing key rotated", "kid", rot.Current.ID,
		"previous", rot.Previous.ID, "previous_verifies_until", rot.Previous.VerifyUntil)
	return rot, nil
}

// rotateTo stores k, sealed under the root key, as the current signing key
// and retires the current one, in one transaction. Two rotations at once
// cannot both retire the same key: the second is refused as a conflict.
//
// The key is retired first, then its window is read: retiring takes the
// key's row lock, which every token's record takes while it is written
// (tokens.Store.Create refuses a token of a retired key), so the window
// counts every token the key will ever have signed, including those a
// worker not yet told of the rotation is minting with it now.
func (r *Ring) rotateTo(ctx context.Context, k *authn.Key) (Rotation, error) {
	sealed, err := seal(r.cfg.Root, k)
	if err != nil {
		return Rotation{}, err
	}
	now := r.clock().UTC().Truncate(time.Microsecond)
	var rot Rotation
	err = store.WithTx(ctx, r.cfg.Client, func(tx *ent.Tx) error {
		prev, err := r.retire(ctx, tx, now)
		if err != nil {
			return err
		}
		if prev != nil {
			rot.Previous = infoOf(prev, false)
		}
		row, err := tx.SigningKey.Create().SetKid(k.ID).SetPublicKey(k.Public()).SetSealedKey(sealed).
			SetWrappedBy(r.cfg.Root.ID).SetCreatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		rot.Current = infoOf(row, true)
		return nil
	})
	if err != nil {
		return Rotation{}, fmt.Errorf("keys: rotate: %w", err)
	}
	return rot, nil
}

// retire retires the keys that sign at now and sets until when each
// verifies; it returns the newest of them, nil when there was none.
func (r *Ring) retire(ctx context.Context, tx *ent.Tx, now time.Time) (*ent.SigningKey, error) {
	signing, err := tx.SigningKey.Query().Where(signingkey.RetiredAtIsNil()).
		Order(ent.Desc(signingkey.FieldCreatedAt), ent.Desc(signingkey.FieldID)).All(ctx)
	if err != nil || len(signing) == 0 {
		return nil, err
	}
	n, err := tx.SigningKey.Update().Where(signingkey.RetiredAtIsNil()).SetRetiredAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n != len(signing) {
		return nil, domainerr.New(domainerr.Conflict, "another rotation retired the signing key meanwhile: list the keys and rotate again if you still need to")
	}
	for _, k := range signing {
		until, err := r.verifyUntil(ctx, tx.Client(), k.Kid, now)
		if err != nil {
			return nil, err
		}
		if err := tx.SigningKey.UpdateOneID(k.ID).SetVerifyUntil(until).Exec(ctx); err != nil {
			return nil, err
		}
		k.RetiredAt, k.VerifyUntil = &now, &until
	}
	return signing[0], nil
}

// verifyUntil is until when the key kid retired at now must verify: until
// the latest expiry of the live, unrevoked tokens it signed (a key signs
// only recorded tokens, workers refuse the others, and no token of it is
// recorded after its retirement: see rotateTo), never later than a token
// of the maximum lifetime minted now would live, plus the leeway for clock
// skew. Tokens recorded before their key was kept count for every key. A
// key with no live token stops verifying after the leeway. A key in
// Config.Retired, rotated out by configuration, verifies as long as it is
// configured, as before keys were in the database: its row stops
// verifying now.
func (r *Ring) verifyUntil(ctx context.Context, db *ent.Client, kid string, now time.Time) (time.Time, error) {
	for _, k := range r.cfg.Retired {
		if k.ID == kid {
			return now, nil
		}
	}
	if r.cfg.VerifyFor > 0 {
		return now.Add(r.cfg.VerifyFor), nil
	}
	until := now
	// Tokens belong to tenants; this reads across them, as system work.
	all := privacy.DecisionContext(ctx, privacy.Allow)
	latest, err := db.Token.Query().Where(token.RevokedAtIsNil(), token.ExpiresAtGT(now), token.KidIn(kid, "")).
		Order(ent.Desc(token.FieldExpiresAt)).First(all)
	switch {
	case ent.IsNotFound(err):
	case err != nil:
		return time.Time{}, err
	case latest.ExpiresAt.After(now.Add(r.cfg.MaxTTL)):
		until = now.Add(r.cfg.MaxTTL) // a token from before lifetimes were bounded: refused anyway
	default:
		until = latest.ExpiresAt
	}
	return until.Add(authn.DefaultLeeway), nil
}

// List returns every signing key, newest first.
func (r *Ring) List(ctx context.Context) ([]Info, error) {
	rows, err := r.cfg.Client.SigningKey.Query().
		Order(ent.Desc(signingkey.FieldCreatedAt), ent.Desc(signingkey.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("keys: list: %w", err)
	}
	out := make([]Info, 0, len(rows))
	current := false
	for _, row := range rows {
		isCurrent := row.RetiredAt == nil && !current
		current = current || isCurrent
		out = append(out, infoOf(row, isCurrent))
	}
	return out, nil
}

func infoOf(row *ent.SigningKey, current bool) Info {
	i := Info{ID: row.Kid, Created: row.CreatedAt, Current: current}
	if row.RetiredAt != nil {
		i.Retired = *row.RetiredAt
	}
	if row.VerifyUntil != nil {
		i.VerifyUntil = *row.VerifyUntil
	}
	return i
}

package keys

import (
	"context"
	"fmt"
	"time"

	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/privacy"
	"github.com/taskwire/taskwire/ent/signingkey"
	"github.com/taskwire/taskwire/ent/token"
	"github.com/taskwire/taskwire/services/authn"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/store"
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
func (r *Ring) rotateTo(ctx context.Context, k *authn.Key) (Rotation, error) {
	sealed, err := seal(r.cfg.Root, k)
	if err != nil {
		return Rotation{}, err
	}
	now := r.clock().UTC().Truncate(time.Microsecond)
	var rot Rotation
	err = store.WithTx(ctx, r.cfg.Client, func(tx *ent.Tx) error {
		prev, err := tx.SigningKey.Query().Where(signingkey.RetiredAtIsNil()).
			Order(ent.Desc(signingkey.FieldCreatedAt), ent.Desc(signingkey.FieldID)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		if prev != nil {
			until, err := r.verifyUntil(ctx, tx.Client(), prev.Kid, now)
			if err != nil {
				return err
			}
			n, err := tx.SigningKey.Update().Where(signingkey.RetiredAtIsNil()).
				SetRetiredAt(now).SetVerifyUntil(until).Save(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				return domainerr.New(domainerr.Conflict, "another rotation retired the signing key meanwhile: list the keys and rotate again if you still need to")
			}
			prev.RetiredAt, prev.VerifyUntil = &now, &until
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

// verifyUntil is until when the key kid retired at now must verify: until
// the latest expiry of the live tokens recorded (a key signs only recorded
// tokens, and workers refuse the others), and at least as long as a token
// of the default TTL minted now would live, for a token a worker not yet
// told of the rotation mints with the old key. The leeway covers clock
// skew. A key in Config.Retired, rotated out by configuration, verifies as
// long as it is configured, as before keys were in the database: its row
// stops verifying now.
func (r *Ring) verifyUntil(ctx context.Context, db *ent.Client, kid string, now time.Time) (time.Time, error) {
	for _, k := range r.cfg.Retired {
		if k.ID == kid {
			return now, nil
		}
	}
	if r.cfg.VerifyFor > 0 {
		return now.Add(r.cfg.VerifyFor), nil
	}
	until := now.Add(authn.DefaultTTL)
	// Tokens belong to tenants; this reads across them, as system work.
	all := privacy.DecisionContext(ctx, privacy.Allow)
	latest, err := db.Token.Query().Where(token.RevokedAtIsNil(), token.ExpiresAtGT(now)).
		Order(ent.Desc(token.FieldExpiresAt)).First(all)
	switch {
	case ent.IsNotFound(err):
	case err != nil:
		return time.Time{}, err
	case latest.ExpiresAt.After(until):
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

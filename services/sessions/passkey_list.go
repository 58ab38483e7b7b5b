package sessions

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/accountidentity"
	"github.com/taskwire/taskwire/internal/ent/passkey"
	"github.com/taskwire/taskwire/internal/store"
)

// ListPasskeys implements taskwirev1.SessionServiceServer.
func (s *Service) ListPasskeys(ctx context.Context, req *taskwirev1.ListPasskeysRequest) (*taskwirev1.ListPasskeysResponse, error) {
	resp, err := s.listPasskeys(ctx, req.GetCookie())
	return done(ctx, resp, err)
}

func (s *Service) listPasskeys(ctx context.Context, cookie string) (*taskwirev1.ListPasskeysResponse, error) {
	acc, err := s.cookieAccount(ctx, cookie)
	if err != nil {
		return nil, err
	}
	keys, err := s.client.Passkey.Query().Where(passkey.AccountID(acc.ID)).Order(passkey.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &taskwirev1.ListPasskeysResponse{Passkeys: make([]*taskwirev1.Passkey, 0, len(keys))}
	for _, k := range keys {
		out.Passkeys = append(out.Passkeys, passkeyToProto(k))
	}
	return out, nil
}

// cookieAccount is the account of a live session's cookie. Listing and
// removing passkeys work on a worker without passkeys too.
func (s *Service) cookieAccount(ctx context.Context, cookie string) (*ent.Account, error) {
	row, err := s.byCookie(ctx, cookie)
	if err != nil {
		return nil, err
	}
	return s.liveSession(ctx, row)
}

// DeletePasskey implements taskwirev1.SessionServiceServer.
func (s *Service) DeletePasskey(ctx context.Context, req *taskwirev1.DeletePasskeyRequest) (*taskwirev1.DeletePasskeyResponse, error) {
	resp, err := s.deletePasskey(ctx, req)
	return done(ctx, resp, err)
}

// deletePasskey removes a passkey of the cookie's account, unless it is
// the account's last way to sign in: a person who removed it could only
// come back with a new sign-in link.
func (s *Service) deletePasskey(ctx context.Context, req *taskwirev1.DeletePasskeyRequest) (*taskwirev1.DeletePasskeyResponse, error) {
	acc, err := s.cookieAccount(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	var gone *ent.Passkey
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		keys, err := tx.Passkey.Query().Where(passkey.AccountID(acc.ID)).All(ctx)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if int64(k.ID) == req.GetId() {
				gone = k
			}
		}
		if gone == nil {
			return domainerr.New(domainerr.NotFound, "You have no such passkey (it may be removed already): reload your account page.")
		}
		if len(keys) == 1 {
			if err := lastWayIn(ctx, tx, acc); err != nil {
				return err
			}
		}
		return tx.Passkey.DeleteOne(gone).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &taskwirev1.DeletePasskeyResponse{Passkey: passkeyToProto(gone)}, nil
}

// lastWayIn refuses to remove the last passkey of an account that has no
// password and no OpenID provider to sign in with.
func lastWayIn(ctx context.Context, tx *ent.Tx, acc *ent.Account) error {
	if acc.PasswordHash != nil {
		return nil
	}
	n, err := tx.AccountIdentity.Query().Where(accountidentity.AccountID(acc.ID)).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	return domainerr.New(domainerr.Conflict, "This is your only passkey and you have no password, so you could not sign in again: add another passkey or set a password first.")
}

// passkeyCount is how many passkeys an account has, for its page.
func (s *Service) passkeyCount(ctx context.Context, account int) (int32, error) {
	n, err := s.client.Passkey.Query().Where(passkey.AccountID(account)).Count(ctx)
	return int32(n), err
}

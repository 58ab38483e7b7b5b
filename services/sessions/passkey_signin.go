package sessions

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store"
)

// BeginPasskeySignIn implements taskwirev1.SessionServiceServer.
func (s *Service) BeginPasskeySignIn(ctx context.Context, _ *taskwirev1.BeginPasskeySignInRequest) (*taskwirev1.BeginPasskeySignInResponse, error) {
	resp, err := s.beginSignIn()
	return done(ctx, resp, err)
}

func (s *Service) beginSignIn() (*taskwirev1.BeginPasskeySignInResponse, error) {
	if s.rp == nil {
		return nil, errNoPasskeys
	}
	assertion, state, err := s.rp.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, err
	}
	options, st, err := s.ceremony(assertion, state)
	return &taskwirev1.BeginPasskeySignInResponse{OptionsJson: options, State: st}, err
}

// signInPasskey checks an authenticator's signature of the ceremony's
// challenge with the passkey it names, and starts a session for the
// passkey's account. A passkey whose counter went back is refused.
func (s *Service) signInPasskey(ctx context.Context, p *taskwirev1.PasskeySignIn, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	began := time.Now()
	if s.rp == nil {
		return nil, errNoPasskeys
	}
	state, err := s.openState(p.GetState())
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes([]byte(p.GetCredentialJson()))
	if err != nil {
		return nil, s.ceremonyFailed(ctx, "sign-in", err, errBadPasskey)
	}
	var u *passkeyUser // the account the passkey names, once found
	_, cred, err := s.rp.ValidatePasskeyLogin(func(rawID, handle []byte) (webauthn.User, error) {
		found, err := s.handleUser(ctx, rawID, handle)
		if err != nil {
			return nil, err
		}
		u = found
		return found, nil
	}, state, parsed)
	switch {
	case errors.Is(err, errUnknownPasskey):
		s.security(ctx, "a sign-in with a passkey not registered here was refused", slog.String("client_addr", req.GetClientAddr()))
		return nil, errUnknownPasskey
	case err != nil:
		err = s.ceremonyFailed(ctx, "sign-in", err, errBadPasskey)
		if u != nil {
			s.refuse(ctx, u.acc.ID, began, "passkey signature not valid")
		}
		return nil, err
	}
	return s.startPasskey(ctx, u, cred, req, began)
}

// handleUser is the account a discoverable passkey names by its user
// handle, with its passkeys; errUnknownPasskey when the handle names no
// account or the account has no such passkey.
func (s *Service) handleUser(ctx context.Context, rawID, handle []byte) (*passkeyUser, error) {
	id := accountOfHandle(handle)
	if id == 0 {
		return nil, errUnknownPasskey
	}
	acc, err := s.client.Account.Query().Where(account.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errUnknownPasskey
	}
	if err != nil {
		return nil, err
	}
	u, err := s.passkeyUserOf(ctx, s.client, acc)
	if err != nil {
		return nil, err
	}
	for _, k := range u.keys {
		if bytes.Equal(k.CredentialID, rawID) {
			return u, nil
		}
	}
	return nil, errUnknownPasskey
}

// startPasskey refuses a cloned passkey or a disabled account, else notes
// the passkey's use and starts the session, in one transaction.
func (s *Service) startPasskey(ctx context.Context, u *passkeyUser, cred *webauthn.Credential, req *taskwirev1.SignInRequest, began time.Time) (*taskwirev1.SignInResponse, error) {
	if cred.Authenticator.CloneWarning {
		s.security(ctx, "a passkey whose signature counter went back was refused", slog.Int("account", u.acc.ID))
		s.refuse(ctx, u.acc.ID, began, "passkey signature counter went back (cloned authenticator?)")
		return nil, errClonedPasskey
	}
	if u.acc.DisabledAt != nil {
		s.refuse(ctx, u.acc.ID, began, "account disabled")
		return nil, errDisabled
	}
	var resp *taskwirev1.SignInResponse
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		for _, k := range u.keys {
			if bytes.Equal(k.CredentialID, cred.ID) {
				err := tx.Passkey.UpdateOne(k).SetSignCount(cred.Authenticator.SignCount).
					SetBackupState(cred.Flags.BackupState).SetLastUsedAt(s.now()).Exec(ctx)
				if err != nil {
					return err
				}
			}
		}
		var err error
		resp, err = s.start(ctx, tx, u.acc, ByPasskey, req, began)
		return err
	})
	return resp, err
}

package sessions

import (
	"context"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/session"
	"github.com/taskwire/taskwire/internal/store"
)

// SetPassword implements taskwirev1.SessionServiceServer.
func (s *Service) SetPassword(ctx context.Context, req *taskwirev1.SetPasswordRequest) (*taskwirev1.SetPasswordResponse, error) {
	resp, err := s.setPassword(ctx, req)
	return done(ctx, resp, err)
}

// setPassword sets the email and password of a live session's account,
// and ends the account's other sessions. An account that has a password
// must give it: a browser left signed in must not let a passer-by take
// the account over.
func (s *Service) setPassword(ctx context.Context, req *taskwirev1.SetPasswordRequest) (*taskwirev1.SetPasswordResponse, error) {
	row, err := s.byCookie(ctx, req.GetCookie())
	if err != nil {
		return nil, err
	}
	acc, err := s.liveSession(ctx, row)
	if err != nil {
		return nil, err
	}
	if err := checkCurrent(acc, req.GetCurrentPassword()); err != nil {
		return nil, err
	}
	email, err := newEmail(acc, req.GetEmail())
	if err != nil {
		return nil, err
	}
	if err := checkNewPassword(req.GetNewPassword()); err != nil {
		return nil, err
	}
	hash, err := HashPassword(req.GetNewPassword())
	if err != nil {
		return nil, err
	}
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		acc, err = tx.Account.UpdateOneID(acc.ID).SetEmail(email).SetPasswordHash(hash).Save(ctx)
		if ent.IsConstraintError(err) {
			return domainerr.Wrap(domainerr.Conflict, err, "Another account signs in with %s: use another email.", email)
		}
		if err != nil {
			return err
		}
		// Whoever knew the old password is signed out everywhere else.
		return tx.Session.Update().
			Where(session.AccountID(acc.ID), session.IDNEQ(row.ID), session.EndedAtIsNil()).
			SetEndedAt(s.now()).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &taskwirev1.SetPasswordResponse{Account: accountToProto(acc)}, nil
}

// checkCurrent refuses a wrong current password of an account that has one.
func checkCurrent(acc *ent.Account, current string) error {
	if acc.PasswordHash == nil {
		return nil
	}
	if current == "" {
		return domainerr.New(domainerr.Invalid, "Type your current password to set a new one.")
	}
	ok, _, err := VerifyPassword(*acc.PasswordHash, current)
	if err != nil {
		return err
	}
	if !ok {
		return domainerr.New(domainerr.PermissionDenied, "The current password is not right: type it again.")
	}
	return nil
}

// newEmail is the email to keep: the one asked for, or the account's.
func newEmail(acc *ent.Account, asked string) (string, error) {
	email := NormalizeEmail(asked)
	if email == "" && acc.Email != nil {
		return *acc.Email, nil
	}
	if err := CheckEmail(email); err != nil {
		return "", err
	}
	return email, nil
}

// CheckEmail refuses what cannot be an email address: empty, without one
// "@" with text on both sides, with spaces, or too long.
func CheckEmail(email string) error {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" || domain == "" || strings.ContainsAny(email, " \t\r\n<>") || strings.Contains(domain, "@") || len(email) > 254 {
		return domainerr.New(domainerr.Invalid, "%q is not an email address: give the one to sign in with, e.g. \"ada@example.com\".", email)
	}
	return nil
}

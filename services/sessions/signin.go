package sessions

import (
	"context"
	"log/slog"
	"strings"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
)

// SignIn implements taskwirev1.SessionServiceServer.
func (s *Service) SignIn(ctx context.Context, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	var resp *taskwirev1.SignInResponse
	var err error
	switch m := req.GetMethod().(type) {
	case *taskwirev1.SignInRequest_Password:
		resp, err = s.signInPassword(ctx, m.Password, req)
	case *taskwirev1.SignInRequest_Link:
		resp, err = s.signInLink(ctx, m.Link, req)
	case *taskwirev1.SignInRequest_Oidc:
		resp, err = s.signInOIDC(ctx, m.Oidc, req)
	case *taskwirev1.SignInRequest_Passkey:
		resp, err = s.signInPasskey(ctx, m.Passkey, req)
	default:
		err = domainerr.New(domainerr.Invalid, "Sign in with an email and password, a passkey, or a sign-in link.")
	}
	return done(ctx, resp, err)
}

// NormalizeEmail is an email as accounts keep it: trimmed and lowercased,
// so that an address is one account however it is typed.
func NormalizeEmail(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}

// signInPassword checks an email and password. An unknown email, an
// account with no password and a wrong password get the same answer
// after the same work (one argon2id hash), so neither the answer nor its
// time tells which emails have accounts.
func (s *Service) signInPassword(ctx context.Context, pw *taskwirev1.PasswordSignIn, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	began := time.Now()
	email := NormalizeEmail(pw.GetEmail())
	acc, err := s.client.Account.Query().Where(account.Email(email)).Only(ctx)
	if ent.IsNotFound(err) || email == "" {
		VerifyPassword(s.dummy, pw.GetPassword())
		s.security(ctx, "a sign-in with an unknown email was refused", slog.String("client_addr", req.GetClientAddr()))
		return nil, errBadCredentials
	}
	if err != nil {
		return nil, err
	}
	hash := s.dummy
	if acc.PasswordHash != nil {
		hash = *acc.PasswordHash
	}
	ok, rehash, err := VerifyPassword(hash, pw.GetPassword())
	if err != nil {
		return nil, err
	}
	if !ok || acc.PasswordHash == nil {
		s.refuse(ctx, acc.ID, began, "wrong password")
		return nil, errBadCredentials
	}
	if acc.DisabledAt != nil {
		s.refuse(ctx, acc.ID, began, "account disabled")
		return nil, errDisabled
	}
	var resp *taskwirev1.SignInResponse
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if rehash {
			if err := s.rehash(ctx, tx, acc, pw.GetPassword()); err != nil {
				return err
			}
		}
		resp, err = s.start(ctx, tx, acc, ByPassword, req, began)
		return err
	})
	return resp, err
}

// rehash stores pw hashed with today's parameters, which the account's
// hash predates.
func (s *Service) rehash(ctx context.Context, tx *ent.Tx, acc *ent.Account, pw string) error {
	hash, err := HashPassword(pw)
	if err != nil {
		return err
	}
	acc.PasswordHash = &hash
	return tx.Account.UpdateOneID(acc.ID).SetPasswordHash(hash).Exec(ctx)
}

// refuse audits a refused sign-in on a known account.
func (s *Service) refuse(ctx context.Context, account int, began time.Time, why string) {
	s.auditRefusal(ctx, account, accountEvent{method: MethodSignIn, outcome: audit.OutcomeRefused, err: why, start: began})
}

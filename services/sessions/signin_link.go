package sessions

import (
	"context"
	"errors"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
)

// signInLink uses up a one-time link and starts a session of its account.
// The link is marked used in the session's transaction, by an update that
// only an unused, unexpired link matches: of two attempts at once, one
// wins. An invitation also makes its member the account's.
func (s *Service) signInLink(ctx context.Context, secret string, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	began := time.Now()
	link, err := s.client.SignInLink.Query().Where(signinlink.SecretHash(hashSecret(secret))).Only(ctx)
	if ent.IsNotFound(err) || secret == "" {
		return nil, errBadLink
	}
	if err != nil {
		return nil, err
	}
	var resp *taskwirev1.SignInResponse
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if err := s.useLink(ctx, tx, link); err != nil {
			return err
		}
		acc, err := liveAccount(ctx, tx.Client(), link.AccountID)
		if err != nil {
			return err
		}
		if link.Purpose == signinlink.PurposeInvitation {
			if err := join(ctx, tx, link); err != nil {
				return err
			}
		}
		resp, err = s.start(ctx, tx, acc, ByLink, req, began)
		return err
	})
	if errors.Is(err, errDisabled) {
		s.refuse(ctx, link.AccountID, began, "account disabled")
	}
	return resp, err
}

// useLink marks link used, or says why it cannot be.
func (s *Service) useLink(ctx context.Context, tx *ent.Tx, link *ent.SignInLink) error {
	now := s.now()
	n, err := tx.SignInLink.Update().
		Where(signinlink.ID(link.ID), signinlink.UsedAtIsNil(), signinlink.ExpiresAtGT(now)).
		SetUsedAt(now).Save(ctx)
	switch {
	case err != nil:
		return err
	case n == 1:
		return nil
	case !link.ExpiresAt.After(now):
		return domainerr.New(domainerr.Unauthenticated,
			"This sign-in link expired at %s: ask an owner or admin of your tenant for a new one.", link.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"))
	}
	return errUsedLink
}

// join makes the member an invitation was made for the account's, unless
// it was removed meanwhile or already is another account's.
func join(ctx context.Context, tx *ent.Tx, link *ent.SignInLink) error {
	if link.TenantID == nil || link.MemberID == nil {
		return nil
	}
	ctx = tenantscope.NewContext(ctx, *link.TenantID)
	n, err := tx.Member.Update().
		Where(member.TenantID(*link.TenantID), member.ID(*link.MemberID), member.RemovedAtIsNil(),
			member.Or(member.AccountIDIsNil(), member.AccountID(link.AccountID))).
		SetAccountID(link.AccountID).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return domainerr.New(domainerr.Unauthenticated,
			"The invitation of this link was withdrawn: ask an owner or admin of the tenant to invite you again.")
	}
	return nil
}

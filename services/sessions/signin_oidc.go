package sessions

import (
	"context"
	"errors"
	"log/slog"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/ent/accountidentity"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
	"github.com/taskwire/taskwire/internal/store"
)

// ByOIDC is the session.method of a sign-in at an OpenID provider.
const ByOIDC = "oidc"

// signInOIDC starts a session for the person an OpenID provider signed in
// (the front door verified the ID token). Their account is the one linked
// to the provider's issuer and subject; else, when the provider vouches
// for the email, the account of that email, which is linked from then on.
// Nobody gets an account or a member by signing in: an account of that
// email exists only when someone invited the person, or they set it; the
// invitations still open are accepted, as following their links would.
func (s *Service) signInOIDC(ctx context.Context, o *taskwirev1.OIDCSignIn, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	began := time.Now()
	if o.GetIssuer() == "" || o.GetSubject() == "" {
		return nil, domainerr.New(domainerr.Invalid, "an OpenID sign-in names no issuer or subject")
	}
	var resp *taskwirev1.SignInResponse
	var accID int
	err := store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		var err error
		if accID, err = s.oidcAccount(ctx, tx, o); err != nil {
			return err
		}
		acc, err := liveAccount(ctx, tx.Client(), accID)
		if err != nil {
			return err
		}
		if err := s.acceptInvitations(ctx, tx, accID); err != nil {
			return err
		}
		resp, err = s.start(ctx, tx, acc, ByOIDC, req, began)
		return err
	})
	if errors.Is(err, errDisabled) {
		s.refuse(ctx, accID, began, "account disabled")
	}
	return resp, err
}

// oidcAccount is the account of o's person, linking it by verified email
// the first time.
func (s *Service) oidcAccount(ctx context.Context, tx *ent.Tx, o *taskwirev1.OIDCSignIn) (int, error) {
	email := NormalizeEmail(o.GetEmail())
	id, err := tx.AccountIdentity.Query().
		Where(accountidentity.Issuer(o.GetIssuer()), accountidentity.Subject(o.GetSubject())).Only(ctx)
	if err == nil {
		return id.AccountID, tx.AccountIdentity.UpdateOne(id).SetEmail(email).SetLastUsedAt(s.now()).Exec(ctx)
	}
	if !ent.IsNotFound(err) {
		return 0, err
	}
	acc, err := tx.Account.Query().Where(account.Email(email)).Only(ctx)
	if ent.IsNotFound(err) || !o.GetEmailVerified() || email == "" {
		s.security(ctx, "an OpenID sign-in of a person no one invited was refused",
			slog.String("provider", o.GetProvider()), slog.String("issuer", o.GetIssuer()), slog.Bool("email_verified", o.GetEmailVerified()))
		return 0, notInvited(email, o.GetEmailVerified())
	}
	if err != nil {
		return 0, err
	}
	err = tx.AccountIdentity.Create().SetAccountID(acc.ID).SetIssuer(o.GetIssuer()).SetSubject(o.GetSubject()).
		SetEmail(email).SetLastUsedAt(s.now()).Exec(ctx)
	if ent.IsConstraintError(err) { // the same person, signing in twice at once
		return 0, domainerr.New(domainerr.Unavailable, "You are being signed in in another tab: try again in a moment.")
	}
	return acc.ID, err
}

// notInvited says why an OpenID sign-in found no account.
func notInvited(email string, verified bool) error {
	if email == "" || !verified {
		return domainerr.New(domainerr.Unauthenticated,
			"Your provider did not confirm an email address for you, so Taskwire cannot tell which invitation is yours: sign in with the link of your invitation instead.")
	}
	return domainerr.New(domainerr.Unauthenticated,
		"No one has invited %s to this Taskwire: ask an owner or admin of your tenant to invite that email, then sign in again.", email)
}

// acceptInvitations makes the account the member of each invitation to
// it still open: the provider vouched for the invited email (or for the
// person who proved it before), which is what following the
// invitation's link proves. Withdrawn invitations are passed over.
func (s *Service) acceptInvitations(ctx context.Context, tx *ent.Tx, acc int) error {
	links, err := tx.SignInLink.Query().Where(signinlink.AccountID(acc), signinlink.PurposeEQ(signinlink.PurposeInvitation),
		signinlink.UsedAtIsNil(), signinlink.ExpiresAtGT(s.now())).All(ctx)
	if err != nil {
		return err
	}
	for _, l := range links {
		if err := s.useLink(ctx, tx, l); err != nil {
			return err
		}
		if err := join(ctx, tx, l); err != nil && domainerr.KindOf(err) != domainerr.Unauthenticated {
			return err
		}
	}
	return nil
}

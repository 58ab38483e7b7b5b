package admin

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/sessions"
)

// CreateSignInLink implements adminv1.AdminServiceServer.
func (s *Service) CreateSignInLink(ctx context.Context, req *adminv1.CreateSignInLinkRequest) (*adminv1.CreateSignInLinkResponse, error) {
	return call(ctx, s, req, s.createSignInLink)
}

// createSignInLink makes a one-time link for a person member, giving them
// an account (with no email yet) when they have none: the first start's
// owner, or a person who lost their password. Admins make none for owners,
// whose accounts they must not be able to take over.
func (s *Service) createSignInLink(ctx context.Context, a actor, req *adminv1.CreateSignInLinkRequest) (*adminv1.CreateSignInLinkResponse, error) {
	t, ctx, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	ttl, err := linkTTL(req)
	if err != nil {
		return nil, err
	}
	expires := s.now().Add(ttl)
	var m *ent.Member
	var secret string
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		if m, err = managedMember(ctx, tx.Client(), t, req.GetHandle(), false); err != nil {
			return err
		}
		if err := mayLink(a, m); err != nil {
			return err
		}
		acc, err := accountOf(ctx, tx, m)
		if err != nil {
			return err
		}
		secret, err = sessions.CreateLink(ctx, tx, sessions.Link{
			Account: acc, Purpose: signinlink.PurposeSignIn,
			Tenant: t.ID, Member: m.ID, CreatedBy: a.access.MemberID, Expires: expires,
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &adminv1.CreateSignInLinkResponse{Secret: secret, ExpireTime: timestamppb.New(expires), Member: memberToProto(m)}, nil
}

// linkTTL is the lifetime asked for, sessions.DefaultLinkTTL when none.
func linkTTL(req *adminv1.CreateSignInLinkRequest) (time.Duration, error) {
	ttl, err := ttlFromProto(req.GetTtl(), "ttl", sessions.MaxLinkTTL)
	switch {
	case err != nil:
		return 0, err
	case ttl == 0:
		return sessions.DefaultLinkTTL, nil
	case ttl > sessions.MaxLinkTTL:
		return 0, domainerr.New(domainerr.Invalid, "a sign-in link lives at most 168h (7 days): ask for less, or for a new link later")
	}
	return ttl, nil
}

// mayLink refuses a link for an assistant, or for an owner by an admin.
func mayLink(a actor, m *ent.Member) error {
	if m.Kind != member.KindHuman {
		return domainerr.New(domainerr.Invalid,
			"%s is an assistant: assistants connect with tokens, and only people sign in to the console", m.Handle)
	}
	return a.mayActOn(m, "make sign-in links for")
}

// accountOf returns the account m signs in as, creating one (no email,
// no password: the link is how they get in) when m has none.
func accountOf(ctx context.Context, tx *ent.Tx, m *ent.Member) (int, error) {
	if m.AccountID != nil {
		return *m.AccountID, nil
	}
	acc, err := tx.Account.Create().SetDisplayName(m.DisplayName).Save(ctx)
	if err != nil {
		return 0, err
	}
	n, err := tx.Member.Update().
		Where(member.TenantID(m.TenantID), member.ID(m.ID), member.AccountIDIsNil()).
		SetAccountID(acc.ID).Save(ctx)
	if err == nil && n == 0 {
		err = domainerr.New(domainerr.Conflict, "%s got an account meanwhile: ask again", m.Handle)
	}
	return acc.ID, err
}

package admin

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/account"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/signinlink"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/sessions"
)

// errAlreadyMember marks an invitation of a person the tenant has: its
// answer is ALREADY_EXISTS, which no domain kind maps to.
var errAlreadyMember = errors.New("admin: the account is a member already")

// InvitePerson implements adminv1.AdminServiceServer.
func (s *Service) InvitePerson(ctx context.Context, req *adminv1.InvitePersonRequest) (*adminv1.InvitePersonResponse, error) {
	resp, err := call(ctx, s, req, s.invitePerson)
	if errors.Is(err, errAlreadyMember) {
		return nil, status.Error(codes.AlreadyExists, domainerr.Message(err))
	}
	return resp, err
}

// invitePerson adds a person member for an email, with the account of
// that email (made when there is none), and a 7-day invitation link. The
// link is returned for the inviter to pass on, and emailed when the
// deployment sends mail: after the commit, so a mail server that is slow
// or down holds no transaction and loses no invitation.
func (s *Service) invitePerson(ctx context.Context, a actor, req *adminv1.InvitePersonRequest) (*adminv1.InvitePersonResponse, error) {
	t, ctx, err := s.manage(ctx, a, req.GetTenant())
	if err != nil {
		return nil, err
	}
	spec, email, err := inviteSpec(a, req)
	if err != nil {
		return nil, err
	}
	if err := s.notMember(ctx, t, email); err != nil {
		return nil, err
	}
	spec.Quota = s.quota
	m, err := tenancy.AddMember(ctx, s.client, t.Slug, spec)
	if err != nil {
		return nil, err
	}
	expires := s.now().Add(sessions.InvitationTTL)
	var secret string
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		acc, err := accountByEmail(ctx, tx, email, m.DisplayName)
		if err != nil {
			return err
		}
		secret, err = sessions.CreateLink(ctx, tx, sessions.Link{
			Account: acc, Purpose: signinlink.PurposeInvitation,
			Tenant: t.ID, Member: m.ID, CreatedBy: a.access.MemberID, Expires: expires,
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	resp := &adminv1.InvitePersonResponse{Member: memberToProto(m), Secret: secret, ExpireTime: timestamppb.New(expires)}
	resp.Emailed, resp.EmailError = s.emailInvitation(ctx, a, t, email, secret, expires)
	return resp, nil
}

// inviteSpec is the member to add for req, and the email normalised.
func inviteSpec(a actor, req *adminv1.InvitePersonRequest) (tenancy.MemberSpec, string, error) {
	email := sessions.NormalizeEmail(req.GetEmail())
	if err := sessions.CheckEmail(email); err != nil {
		return tenancy.MemberSpec{}, "", err
	}
	role, err := roleFromProto(req.GetRole(), member.RoleMember)
	if err != nil {
		return tenancy.MemberSpec{}, "", err
	}
	if err := a.mayGrant(role); err != nil {
		return tenancy.MemberSpec{}, "", err
	}
	local, _, _ := strings.Cut(email, "@")
	spec := tenancy.MemberSpec{Handle: req.GetHandle(), Name: req.GetDisplayName(), Kind: member.KindHuman, Role: role}
	if spec.Handle == "" {
		spec.Handle = handleFrom(local)
	}
	if spec.Name == "" {
		spec.Name = local
	}
	return spec, email, nil
}

// handleFrom derives a handle from an email's local part: lowercase
// letters, digits and dashes, starting with a letter, at most 40.
func handleFrom(local string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(local) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0:
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	h := strings.TrimRight(b.String(), "-")
	if len(h) > 40 {
		h = strings.TrimRight(h[:40], "-")
	}
	if h == "" {
		h = "person"
	}
	return h
}

// notMember refuses an email whose account is a member of t already.
func (s *Service) notMember(ctx context.Context, t *ent.Tenant, email string) error {
	acc, err := s.client.Account.Query().Where(account.Email(email)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	n, err := s.client.Member.Query().
		Where(member.TenantID(t.ID), member.AccountID(acc), member.RemovedAtIsNil()).Count(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return domainerr.Wrap(domainerr.Conflict, errAlreadyMember,
			"%s is a member of %s already: change their role instead, or send them a sign-in link", email, t.Slug)
	}
	return nil
}

// accountByEmail returns the account signing in with email, made (with no
// password) when there is none.
func accountByEmail(ctx context.Context, tx *ent.Tx, email, name string) (int, error) {
	id, err := tx.Account.Query().Where(account.Email(email)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		var acc *ent.Account
		acc, err = tx.Account.Create().SetEmail(email).SetDisplayName(name).Save(ctx)
		if err == nil {
			id = acc.ID
		}
	}
	return id, err
}

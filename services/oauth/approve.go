package oauth

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/audit"
)

// The methods audit events of grants name: no gRPC method a member
// calls, but what a person did on the consent page or the tokens page.
const (
	MethodGrant       = "oauth/grant"
	MethodRevokeGrant = "oauth/revoke-grant"
)

// Approve implements taskwirev1.OAuthServiceServer.
func (s *Service) Approve(ctx context.Context, req *taskwirev1.ApproveRequest) (*taskwirev1.ApproveResponse, error) {
	ar, err := s.checkRequest(ctx, req.GetRequest())
	if r := asRefusal(err); r != nil {
		return &taskwirev1.ApproveResponse{Error: r, Redirect: ar.redirectURI != "", RedirectUri: ar.redirectURI}, nil
	}
	var code string
	if err == nil {
		code, err = s.approve(ctx, req, ar)
	}
	if err != nil {
		return done[*taskwirev1.ApproveResponse](ctx, nil, err)
	}
	return &taskwirev1.ApproveResponse{Redirect: true, RedirectUri: ar.redirectURI, Code: code}, nil
}

// approve records the consent of the person of req's cookie for ar in
// req's tenant, and returns the code the client exchanges for tokens.
func (s *Service) approve(ctx context.Context, req *taskwirev1.ApproveRequest, ar *authRequest) (string, error) {
	sess, err := s.person(ctx, req.GetCookie())
	if err != nil {
		return "", err
	}
	ms := membershipIn(sess, req.GetTenant())
	if ms == nil {
		return "", domainerr.New(domainerr.PermissionDenied, "You are no member of tenant %q: choose one of your tenants.", req.GetTenant())
	}
	t, ctx, err := tenancy.Tenant(ctx, s.client, ms.GetTenant())
	if err != nil {
		return "", err
	}
	code := randomToken(32)
	var asst assistant
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		asst, err = s.grant(ctx, tx, t, int(sess.GetAccount().GetId()), int(ms.GetMemberId()), ar, code)
		return err
	})
	if err != nil {
		return "", err
	}
	if asst.roleChanged {
		s.toolsChanged(ctx, t.Slug, asst.ID)
	}
	s.sweep(ctx)
	return code, nil
}

// toolsChanged tells the tenant that member's tools changed. A failure
// is logged, not answered: the role is stored, and applies as workers
// next read it.
func (s *Service) toolsChanged(ctx context.Context, tenant string, member int) {
	if s.events == nil {
		return
	}
	if err := s.events.Publish(tenant, events.Event{Kind: events.ToolsChanged, Member: member}); err != nil {
		s.log.WarnContext(ctx, "oauth: cannot announce an assistant's new role", "tenant", tenant, "member", member, "err", err)
	}
}

// grant records, in tx, the grant of the person (member personID of t,
// account) to ar's client and the code for it, and returns the assistant
// the client acts as.
func (s *Service) grant(ctx context.Context, tx *ent.Tx, t *ent.Tenant, account, personID int, ar *authRequest, code string) (assistant, error) {
	person, err := tenancy.MemberByID(ctx, tx.Client(), t, personID)
	if err != nil {
		return assistant{}, err
	}
	if person.RemovedAt != nil {
		return assistant{}, domainerr.New(domainerr.PermissionDenied, "You were removed from tenant %s: choose another tenant.", t.Slug)
	}
	role := assistantRole(string(person.Role))
	asst, err := s.assistantFor(ctx, tx, t, person, account, ar.client, role)
	if err != nil {
		return assistant{}, err
	}
	return asst, s.record(ctx, tx, t, account, person, asst.Member, ar, capScopes(ar.scopes, role), code)
}

// record writes the grant of person (of account) to ar's client, acting
// as asst with scopes, its code, and the audit event, in tx.
func (s *Service) record(ctx context.Context, tx *ent.Tx, t *ent.Tenant, account int, person, asst *ent.Member, ar *authRequest, scopes []string, code string) error {
	now := s.now()
	g, err := tx.OAuthGrant.Create().SetTenantID(t.ID).SetClientID(ar.client.id).SetAccountID(account).
		SetPersonID(person.ID).SetMemberID(asst.ID).SetScopes(scopes).SetToolsets([]string{}).
		SetResource(ar.resource).SetRedirectURI(ar.redirectURI).SetCreatedAt(now).
		SetExpiresAt(now.Add(s.limits.GrantLifetime)).Save(ctx)
	if err != nil {
		return err
	}
	err = tx.OAuthCode.Create().SetHash(hashOf(code)).SetGrantID(g.ID).SetClientID(ar.client.id).
		SetRedirectURI(ar.redirectURI).SetCodeChallenge(ar.challenge).SetResource(ar.resource).
		SetScopes(g.Scopes).SetCreatedAt(now).SetExpiresAt(now.Add(s.limits.CodeTTL)).Exec(ctx)
	if err != nil {
		return err
	}
	if err := s.clientUsed(ctx, tx, ar.client.id); err != nil {
		return err
	}
	return s.audit.RecordTx(ctx, tx, audit.Event{
		OccurredAt: now, Tenant: t.Slug, TenantID: t.ID,
		MemberID: person.ID, Member: person.Handle, Kind: audit.KindHuman,
		Method: MethodGrant, Targets: []string{asst.Handle, ar.client.id}, Outcome: audit.OutcomeOK,
	})
}

// clientUsed notes that a grant used the client with id: a registration
// used once no longer expires unused.
func (s *Service) clientUsed(ctx context.Context, tx *ent.Tx, id string) error {
	ctx = system(ctx)
	now := s.now()
	if err := tx.OAuthClient.Update().Where(oauthclient.ClientID(id)).SetLastUsedAt(now).Exec(ctx); err != nil {
		return err
	}
	return tx.OAuthClient.Update().Where(oauthclient.ClientID(id), oauthclient.KindEQ(oauthclient.KindRegistered)).
		ClearExpiresAt().Exec(ctx)
}

// liveGrant refuses a grant that was revoked or reached its lifetime, as
// invalid_grant.
func (s *Service) liveGrant(g *ent.OAuthGrant) error {
	switch {
	case g.RevokedAt != nil:
		return refuse(errInvalidGrant, "This authorization was revoked (%s): sign in again to authorize the client anew.", g.RevokedWhy)
	case !s.now().Before(g.ExpiresAt):
		return refuse(errInvalidGrant, "This authorization reached its lifetime on %s: sign in again to authorize the client anew.", g.ExpiresAt.Format(time.DateOnly))
	}
	return nil
}

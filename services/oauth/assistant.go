package oauth

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/oauthgrant"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// previous is the assistant of a person's latest grant to a client in a
// tenant: member nil when there is none or it was removed; live when that
// grant still works.
type previous struct {
	member *ent.Member
	live   bool
}

// previousAssistant finds the assistant the person with account last
// granted client in the tenant with slug tenantSlug, to reuse it: one
// assistant per person and client, whose history and audit trail go on.
func (s *Service) previousAssistant(ctx context.Context, account int, tenantSlug, client string) (previous, error) {
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return previous{}, err
	}
	return s.previousIn(ctx, s.client, t, account, client)
}

// previousIn is previousAssistant for tenant t through c (a transaction's
// client, or the service's). ctx must be scoped to t.
func (s *Service) previousIn(ctx context.Context, c *ent.Client, t *ent.Tenant, account int, client string) (previous, error) {
	g, err := c.OAuthGrant.Query().
		Where(oauthgrant.TenantID(t.ID), oauthgrant.AccountID(account), oauthgrant.ClientID(client)).
		Order(ent.Desc(oauthgrant.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return previous{}, nil
	}
	if err != nil {
		return previous{}, err
	}
	m, err := tenancy.MemberByID(ctx, c, t, g.MemberID)
	if err != nil || m.RemovedAt != nil || m.Kind != member.KindAssistant {
		return previous{}, err
	}
	return previous{member: m, live: s.liveGrant(g) == nil}, nil
}

// assistantHandle is the handle proposed for the assistant a person with
// handle person connects through a client named name: "alice-claude".
func assistantHandle(person, name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 16 {
			break
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = "assistant"
	}
	h := person + "-" + slug
	if len(h) > 36 { // room for a "-99" to make it unique
		h = strings.TrimRight(h[:36], "-")
	}
	return h
}

// freeHandle is base, or base-2, base-3 … when taken in the tenant with
// slug tenantSlug.
func (s *Service) freeHandle(ctx context.Context, tenantSlug, base string) (string, error) {
	t, ctx, err := tenancy.Tenant(ctx, s.client, tenantSlug)
	if err != nil {
		return "", err
	}
	return freeHandleIn(ctx, s.client, t, base)
}

// freeHandleIn is freeHandle for t through c. ctx must be scoped to t.
func freeHandleIn(ctx context.Context, c *ent.Client, t *ent.Tenant, base string) (string, error) {
	taken, err := c.Member.Query().Where(member.TenantID(t.ID), member.HandleHasPrefix(base)).
		Select(member.FieldHandle).Strings(ctx)
	if err != nil {
		return "", err
	}
	seen := make(map[string]bool, len(taken))
	for _, h := range taken {
		seen[h] = true
	}
	h := base
	for i := 2; seen[h]; i++ {
		h = fmt.Sprintf("%s-%d", base, i)
	}
	return h, nil
}

// assistant is the member a client acts as, and whether approving just
// changed its role.
type assistant struct {
	*ent.Member
	roleChanged bool
}

// assistantFor returns the assistant the client acts as for person in t,
// in tx: the one of the person's previous grant to the client when it is
// still a member (its role set to role, which follows the person's own),
// else a new one they sponsor.
func (s *Service) assistantFor(ctx context.Context, tx *ent.Tx, t *ent.Tenant, person *ent.Member, account int, c *oauthClient, role string) (assistant, error) {
	prev, err := s.previousIn(ctx, tx.Client(), t, account, c.id)
	if err != nil {
		return assistant{}, err
	}
	if prev.member != nil {
		if string(prev.member.Role) == role {
			return assistant{Member: prev.member}, nil
		}
		m, err := tx.Member.UpdateOne(prev.member).SetRole(member.Role(role)).Save(ctx)
		return assistant{Member: m, roleChanged: true}, err
	}
	handle, err := freeHandleIn(ctx, tx.Client(), t, assistantHandle(person.Handle, c.name))
	if err != nil {
		return assistant{}, err
	}
	m, err := tenancy.AddMemberTx(ctx, tx, t, tenancy.MemberSpec{
		Handle: handle, Name: c.name, Kind: member.KindAssistant, Role: member.Role(role), SponsorHandle: person.Handle,
		Quota: s.quota,
	})
	return assistant{Member: m}, err
}

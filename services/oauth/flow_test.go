package oauth_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// TestFlow is what a client does: register, have alice consent, redeem
// the code, refresh, and revoke; each token works as the worker checks it
// until revoked.
func TestFlow(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		client := e.publicClient(t)
		p := newPKCE("f")
		check, err := e.svc.CheckAuthorization(ctx, &taskwirev1.CheckAuthorizationRequest{Cookie: e.cookies["alice"], Request: authReq(client, p)})
		if err != nil || check.GetError() != nil {
			t.Fatalf("CheckAuthorization = %v, %v, want a consent", check, err)
		}
		consent := check.GetConsent()
		if consent.GetClientName() != "Claude" || consent.GetRedirectHost() != "client.example" || consent.GetClientKind() != "registered" || consent.GetLocalOnly() {
			t.Errorf("consent = %v, want Claude, redirecting to client.example, registered, not local", consent)
		}
		if got := consent.GetScopes(); !slices.Equal(got, []string{"read", "comment", "write"}) {
			t.Errorf("consent scopes = %v, want read comment write", got)
		}
		var tenants []string
		for _, ct := range consent.GetTenants() {
			tenants = append(tenants, ct.GetTenant()+":"+ct.GetAssistantHandle()+":"+ct.GetAssistantRole().String())
		}
		want := []string{"acme:alice-claude:MEMBER_ROLE_MEMBER", "globex:al-claude:MEMBER_ROLE_MEMBER"}
		if !slices.Equal(tenants, want) {
			t.Errorf("consent tenants = %v, want %v", tenants, want)
		}

		code := e.approve(t, "alice", "acme", authReq(client, p))
		first := e.exchange(t, client, code, p)
		if first.GetError() != nil {
			t.Fatalf("Token = %v, want tokens", first.GetError())
		}
		if first.GetExpiresIn() != 3600 || first.GetScope() != "read comment write" || !strings.HasPrefix(first.GetRefreshToken(), "twr_") {
			t.Errorf("Token = expires_in %d, scope %q, refresh %q; want 3600, read comment write, twr_…", first.GetExpiresIn(), first.GetScope(), first.GetRefreshToken())
		}
		c, _ := e.caller(t, first.GetAccessToken())
		asst, err := tenancy.FindMember(ctx, e.client, "acme", "alice-claude")
		if err != nil {
			t.Fatal(err)
		}
		if c.Tenant != "acme" || c.Member != asst.ID || asst.Kind != member.KindAssistant || asst.Edges.Sponsor.Handle != "alice" {
			t.Errorf("token for %s/%d; assistant %v; want acme's alice-claude, an assistant sponsored by alice", c.Tenant, c.Member, asst)
		}

		second := e.token(t, refreshReq(client, first.GetRefreshToken()))
		if second.GetError() != nil || second.GetAccessToken() == "" || second.GetRefreshToken() == first.GetRefreshToken() {
			t.Fatalf("refresh = %v, want a new pair", second)
		}
		e.caller(t, second.GetAccessToken())

		// Alice connects the same client again: the same assistant.
		p2 := newPKCE("g")
		again := e.exchange(t, client, e.approve(t, "alice", "acme", authReq(client, p2)), p2)
		c2, _ := e.caller(t, again.GetAccessToken())
		if c2.Member != asst.ID {
			t.Errorf("second grant's assistant = %d, want %d (alice-claude, reused)", c2.Member, asst.ID)
		}

		rv, err := e.svc.Revoke(ctx, &taskwirev1.RevokeRequest{Token: second.GetRefreshToken(), ClientId: client, AuthMethod: "none"})
		if err != nil || rv.GetError() != nil {
			t.Fatalf("Revoke = %v, %v", rv, err)
		}
		for _, raw := range []string{first.GetAccessToken(), second.GetAccessToken()} {
			if c, _ := e.caller(t, raw); !e.revoked(t, raw) || !e.sent.broadcast(c.TokenID) {
				t.Errorf("access token %s is not revoked and broadcast after its grant was revoked", c.TokenID)
			}
		}
		if e.revoked(t, again.GetAccessToken()) {
			t.Errorf("the token of alice's other grant was revoked too")
		}
		wantError(t, "refresh after revocation", e.token(t, refreshReq(client, second.GetRefreshToken())).GetError(), "invalid_grant")

		// An access token revokes its grant as well.
		if _, err := e.svc.Revoke(ctx, &taskwirev1.RevokeRequest{Token: again.GetAccessToken(), ClientId: client}); err != nil {
			t.Fatal(err)
		}
		if !e.revoked(t, again.GetAccessToken()) {
			t.Errorf("revoking an access token left it live")
		}
		n, err := e.client.Token.Query().Where(token.GrantIDNotNil()).Count(systemCtx())
		if err != nil || n != 3 {
			t.Errorf("tokens with a grant = %d, %v; want 3", n, err)
		}
		if rv, _ := e.svc.Revoke(ctx, &taskwirev1.RevokeRequest{Token: "twr_unknown", ClientId: client}); rv.GetError() != nil {
			t.Errorf("Revoke(unknown) = %v, want no error (RFC 7009)", rv.GetError())
		}
	})
}

// TestViewerAssistantReads: a viewer's assistant is a viewer, and its
// token reads only, whatever the client asked for.
func TestViewerAssistantReads(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		client := e.publicClient(t)
		p := newPKCE("v")
		r := authReq(client, p)
		r.Scope = "write"
		resp := e.exchange(t, client, e.approve(t, "vic", "acme", r), p)
		if resp.GetScope() != "read" {
			t.Errorf("viewer's scope = %q, want read", resp.GetScope())
		}
		c, _ := e.caller(t, resp.GetAccessToken())
		m, err := tenancy.FindMember(context.Background(), e.client, "acme", "vic-claude")
		if err != nil || m.ID != c.Member || m.Role != member.RoleViewer {
			t.Errorf("assistant = %v, %v; want vic-claude, a viewer", m, err)
		}
	})
}

// TestAssistantRoleFollowsPerson: connecting a client again after the
// person's role changed gives their assistant the role that follows from
// it, and tells the workers its tools changed.
func TestAssistantRoleFollowsPerson(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		client := e.publicClient(t)
		p := newPKCE("m")
		e.exchange(t, client, e.approve(t, "mia", "acme", authReq(client, p)), p)
		mia, err := tenancy.FindMember(ctx, e.client, "acme", "mia")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.client.Member.UpdateOne(mia).SetRole(member.RoleViewer).Exec(tenantscope.NewContext(ctx, mia.TenantID)); err != nil {
			t.Fatal(err)
		}
		again := e.exchange(t, client, e.approve(t, "mia", "acme", authReq(client, p)), p)
		asst, err := tenancy.FindMember(ctx, e.client, "acme", "mia-claude")
		if err != nil {
			t.Fatal(err)
		}
		if asst.Role != member.RoleViewer || again.GetScope() != "read" {
			t.Errorf("assistant of a viewer: role %s, scope %q; want viewer, read", asst.Role, again.GetScope())
		}
		if got, want := e.sent.published(), []string{fmt.Sprintf("acme tools %d", asst.ID)}; !slices.Equal(got, want) {
			t.Errorf("published %v, want %v", got, want)
		}
	})
}

package oauth_test

import (
	"context"
	"slices"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/services/audit"
)

// grantsOf lists the grants who sees, in tenant ("" for their own).
func (e *env) grantsOf(t *testing.T, who, tenant string) []string {
	t.Helper()
	resp, err := e.svc.ListGrants(context.Background(), &taskwirev1.ListGrantsRequest{Cookie: e.cookies[who], Tenant: tenant})
	if err != nil {
		t.Fatalf("ListGrants(%s, %q) = %v", who, tenant, err)
	}
	var out []string
	for _, g := range resp.GetGrants() {
		out = append(out, g.GetTenant()+"/"+g.GetAssistantHandle()+" for "+g.GetPersonHandle()+" by "+g.GetClientName())
	}
	slices.Sort(out)
	return out
}

// grantIDs are the ids of the grants who sees in tenant.
func (e *env) grantIDs(t *testing.T, who, tenant string) []int64 {
	t.Helper()
	resp, err := e.svc.ListGrants(context.Background(), &taskwirev1.ListGrantsRequest{Cookie: e.cookies[who], Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, g := range resp.GetGrants() {
		ids = append(ids, g.GetId())
	}
	return ids
}

// TestGrants: people see and revoke their own grants; owners and admins
// those of their tenant; nobody else's.
func TestGrants(t *testing.T) {
	run(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		client := e.publicClient(t)
		tokens := map[string]string{}
		for _, who := range []string{"alice", "vic", "mia"} {
			p := newPKCE(who[:1])
			tokens[who] = e.exchange(t, client, e.approve(t, who, "acme", authReq(client, p)), p).GetAccessToken()
		}
		p := newPKCE("g")
		e.approve(t, "alice", "globex", authReq(client, p))

		if got, want := e.grantsOf(t, "alice", ""), []string{"acme/alice-claude for alice by Claude", "globex/al-claude for al by Claude"}; !slices.Equal(got, want) {
			t.Errorf("alice's own grants = %v, want %v", got, want)
		}
		if got := e.grantsOf(t, "alice", "acme"); len(got) != 3 {
			t.Errorf("acme's grants as its owner = %v, want all 3", got)
		}
		if got, want := e.grantsOf(t, "mia", "acme"), []string{"acme/mia-claude for mia by Claude"}; !slices.Equal(got, want) {
			t.Errorf("acme's grants as a member = %v, want her own %v", got, want)
		}
		if _, err := e.svc.ListGrants(ctx, &taskwirev1.ListGrantsRequest{Cookie: e.cookies["mia"], Tenant: "globex"}); domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("ListGrants(globex) as mia = %v, want PermissionDenied", err)
		}

		vics := e.grantIDs(t, "vic", "")[0]
		_, err := e.svc.RevokeGrant(ctx, &taskwirev1.RevokeGrantRequest{Cookie: e.cookies["mia"], Id: vics})
		if domainerr.KindOf(err) != domainerr.PermissionDenied {
			t.Errorf("mia revoking vic's grant = %v, want PermissionDenied", err)
		}
		resp, err := e.svc.RevokeGrant(ctx, &taskwirev1.RevokeGrantRequest{Cookie: e.cookies["alice"], Id: vics})
		if err != nil || resp.GetGrant().GetRevokeTime() == nil {
			t.Fatalf("alice (owner) revoking vic's grant = %v, %v; want it revoked", resp, err)
		}
		if !e.revoked(t, tokens["vic"]) || e.revoked(t, tokens["mia"]) {
			t.Errorf("after revoking vic's grant: vic's token revoked %t, mia's %t; want true, false", e.revoked(t, tokens["vic"]), e.revoked(t, tokens["mia"]))
		}
		mias := e.grantIDs(t, "mia", "")[0]
		if _, err := e.svc.RevokeGrant(ctx, &taskwirev1.RevokeGrantRequest{Cookie: e.cookies["mia"], Id: mias}); err != nil {
			t.Errorf("mia revoking her own grant = %v", err)
		}
		if _, err := e.svc.RevokeGrant(ctx, &taskwirev1.RevokeGrantRequest{Cookie: e.cookies["mia"], Id: 999999}); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("revoking no grant = %v, want NotFound", err)
		}
		if got := e.grantsOf(t, "alice", "acme"); len(got) != 1 {
			t.Errorf("acme's live grants = %v, want alice's only", got)
		}
		e.wantAudit(t, "acme", "oauth/revoke-grant", "alice", "mia")
		e.wantAudit(t, "acme", "oauth/grant", "alice", "mia", "vic")
	})
}

// wantAudit fails the test unless acme's audit log has an event of
// method by each member named.
func (e *env) wantAudit(t *testing.T, tenant, method string, members ...string) {
	t.Helper()
	au, err := audit.New(audit.Config{Client: e.client, CursorKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	events, _, err := au.List(context.Background(), tenant, audit.Filter{}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		if ev.Method == method && !slices.Contains(got, ev.Member) {
			got = append(got, ev.Member)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, members) {
		t.Errorf("audit %s in %s by %v, want %v", method, tenant, got, members)
	}
}

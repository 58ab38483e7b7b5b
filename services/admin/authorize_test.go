package admin_test

import (
	"context"
	"fmt"
	"testing"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// op is one RPC called by one kind of caller; n makes its names unique
// across callers.
type op struct {
	name string
	call func(ctx context.Context, e *env, t *testing.T, n string) error
}

var ops = []op{
	{"CreateTenant", func(ctx context.Context, e *env, _ *testing.T, n string) error {
		_, err := e.svc.CreateTenant(ctx, &adminv1.CreateTenantRequest{Slug: "t-" + n, OwnerHandle: "o"})
		return err
	}},
	{"GetTenant", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.GetTenant(ctx, &adminv1.GetTenantRequest{Tenant: "acme"})
		return err
	}},
	{"ListTenants", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.ListTenants(ctx, &adminv1.ListTenantsRequest{})
		return err
	}},
	{"AddMember", func(ctx context.Context, e *env, _ *testing.T, n string) error {
		_, err := e.svc.AddMember(ctx, &adminv1.AddMemberRequest{Tenant: "acme", Handle: "h-" + n})
		return err
	}},
	{"ListMembers", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.ListMembers(ctx, &adminv1.ListMembersRequest{Tenant: "acme"})
		return err
	}},
	{"SetMemberRole", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.SetMemberRole(ctx, &adminv1.SetMemberRoleRequest{Tenant: "acme", Handle: "mia", Role: roleOf("member")})
		return err
	}},
	{"RemoveMember", func(ctx context.Context, e *env, _ *testing.T, n string) error {
		_, err := e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Tenant: "acme", Handle: "h-" + n})
		return err
	}},
	{"CreateToken", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.CreateToken(ctx, &adminv1.CreateTokenRequest{Tenant: "acme", Member: "mia", Scopes: []string{"read"}})
		return err
	}},
	{"ListTokens", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.ListTokens(ctx, &adminv1.ListTokensRequest{Tenant: "acme"})
		return err
	}},
	{"RevokeToken", func(ctx context.Context, e *env, t *testing.T, _ string) error {
		_, err := e.svc.RevokeToken(ctx, &adminv1.RevokeTokenRequest{Tenant: "acme", Id: e.mint(t, "acme/mia")})
		return err
	}},
	{"RevokeMemberTokens", func(ctx context.Context, e *env, _ *testing.T, _ string) error {
		_, err := e.svc.RevokeMemberTokens(ctx, &adminv1.RevokeMemberTokensRequest{Tenant: "acme", Member: "mia"})
		return err
	}},
}

// TestAuthorizationMatrix calls every RPC, on tenant acme, as each kind
// of caller.
func TestAuthorizationMatrix(t *testing.T) {
	const (
		ok       = -1
		denied   = domainerr.PermissionDenied
		notFound = domainerr.NotFound
	)
	operatorOnly := map[string]bool{"CreateTenant": true, "ListTenants": true}
	callers := []struct {
		name   string
		who    string
		scopes []string
		want   func(op string) domainerr.Kind
	}{
		{"operator", "operator", nil, func(string) domainerr.Kind { return ok }},
		{"owner", "acme/alice", nil, func(op string) domainerr.Kind { return pick(operatorOnly[op], denied, ok) }},
		{"admin", "acme/adam", nil, func(op string) domainerr.Kind { return pick(operatorOnly[op], denied, ok) }},
		{"member", "acme/mia", nil, func(string) domainerr.Kind { return denied }},
		{"viewer", "acme/vic", nil, func(string) domainerr.Kind { return denied }},
		{"assistant", "acme/bot", nil, func(string) domainerr.Kind { return denied }},
		{"owner with an MCP token", "acme/alice", authz.AllScopes, func(op string) domainerr.Kind { return pick(operatorOnly[op], denied, domainerr.Unauthenticated) }},
		{"admin of another tenant", "globex/gus", nil, func(op string) domainerr.Kind { return pick(operatorOnly[op], denied, notFound) }},
	}
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		for i, c := range callers {
			for _, o := range ops {
				err := o.call(e.as(t, c.who, c.scopes...), e, t, fmt.Sprint(i))
				got, want := domainerr.Kind(ok), c.want(o.name)
				if err != nil {
					got = domainerr.KindOf(err)
				}
				if got != want {
					t.Errorf("%s as %s = %v (%v), want %v", o.name, c.name, err, kindName(got), kindName(want))
				}
			}
		}
	})
}

func pick(cond bool, a, b domainerr.Kind) domainerr.Kind {
	if cond {
		return a
	}
	return b
}

func kindName(k domainerr.Kind) string {
	if k < 0 {
		return "ok"
	}
	return k.String()
}

// TestRefusalSentences: refusals say who the caller is and whom to ask;
// another tenant is not found in the words of one that does not exist.
func TestRefusalSentences(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	for _, tc := range []struct {
		who    string
		scopes []string
		tenant string
		want   string
	}{
		{"acme/mia", nil, "", "You are a member on tenant acme: managing members, tokens and boards needs an owner or admin of acme."},
		{"acme/adam", authz.AllScopes, "acme", "This is an MCP token, which cannot administer: use the operator secret or an admin token."},
		{"globex/gus", nil, "acme", `no tenant "acme"`},
		{"globex/gus", nil, "nope", `no tenant "nope"`},
		{"operator", nil, "", "name the tenant: operators act on every tenant, so each call names one"},
	} {
		_, err := e.svc.ListMembers(e.as(t, tc.who, tc.scopes...), &adminv1.ListMembersRequest{Tenant: tc.tenant})
		if got := domainerr.Message(err); got != tc.want {
			t.Errorf("ListMembers(%q) as %s %v = %q, want %q", tc.tenant, tc.who, tc.scopes, got, tc.want)
		}
	}
	_, err := e.svc.ListTenants(e.as(t, "acme/alice"), &adminv1.ListTenantsRequest{})
	if want := "Only the platform operators of this deployment can list tenants; you act on tenant acme only."; domainerr.Message(err) != want {
		t.Errorf("ListTenants as an owner = %q, want %q", domainerr.Message(err), want)
	}
	if _, err := e.svc.ListTenants(context.Background(), &adminv1.ListTenantsRequest{}); domainerr.KindOf(err) != domainerr.Unauthenticated {
		t.Errorf("ListTenants with no caller = %v, want unauthenticated", err)
	}
}

// TestAdminsCannotActOnOwners: an admin manages everyone but owners, and
// cannot make one; an owner can do all of it.
func TestAdminsCannotActOnOwners(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		op := e.as(t, "operator")
		if _, err := e.svc.SetMemberRole(op, &adminv1.SetMemberRoleRequest{Tenant: "acme", Handle: "mia", Role: roleOf("owner")}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AddMember(op, &adminv1.AddMemberRequest{Tenant: "acme", Handle: "olga", Role: roleOf("owner")}); err != nil {
			t.Fatal(err)
		}
		ownerToken := e.mint(t, "acme/alice")
		attempts := []struct {
			name string
			call func(ctx context.Context) error
		}{
			{"add an owner", func(ctx context.Context) error {
				_, err := e.svc.AddMember(ctx, &adminv1.AddMemberRequest{Handle: "oscar", Role: roleOf("owner")})
				return err
			}},
			{"promote to owner", func(ctx context.Context) error {
				_, err := e.svc.SetMemberRole(ctx, &adminv1.SetMemberRoleRequest{Handle: "vic", Role: roleOf("owner")})
				return err
			}},
			{"mint for an owner", func(ctx context.Context) error {
				_, err := e.svc.CreateToken(ctx, &adminv1.CreateTokenRequest{Member: "alice", Scopes: []string{"read"}})
				return err
			}},
			{"revoke an owner's token", func(ctx context.Context) error {
				_, err := e.svc.RevokeToken(ctx, &adminv1.RevokeTokenRequest{Id: ownerToken})
				return err
			}},
			{"revoke an owner's tokens", func(ctx context.Context) error {
				_, err := e.svc.RevokeMemberTokens(ctx, &adminv1.RevokeMemberTokensRequest{Member: "alice"})
				return err
			}},
			{"demote an owner", func(ctx context.Context) error {
				_, err := e.svc.SetMemberRole(ctx, &adminv1.SetMemberRoleRequest{Handle: "mia", Role: roleOf("admin")})
				return err
			}},
			{"remove an owner", func(ctx context.Context) error {
				_, err := e.svc.RemoveMember(ctx, &adminv1.RemoveMemberRequest{Handle: "olga"})
				return err
			}},
		}
		for _, a := range attempts {
			if err := a.call(e.as(t, "acme/adam")); domainerr.KindOf(err) != domainerr.PermissionDenied {
				t.Errorf("an admin tries to %s: %v, want permission denied", a.name, err)
			}
		}
		// An owner may.
		for _, a := range attempts {
			if err := a.call(e.as(t, "acme/alice")); err != nil {
				t.Errorf("an owner tries to %s: %v, want success", a.name, err)
			}
		}
	})
}

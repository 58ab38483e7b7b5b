package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/admin"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestCreateTenant: an operator creates a tenant with its owner, default
// board and a first token that verifies as the owner's.
func TestCreateTenant(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		op := e.as(t, "operator")
		resp, err := e.svc.CreateTenant(op, &adminv1.CreateTenantRequest{
			Slug: "initech", Name: "Initech", OwnerHandle: "peter", OwnerName: "Peter",
			OwnerTokenTtl: durationpb.New(24 * time.Hour),
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetTenant().GetSlug() != "initech" || resp.GetTenant().GetName() != "Initech" ||
			resp.GetOwner().GetHandle() != "peter" || resp.GetOwner().GetDisplayName() != "Peter" {
			t.Errorf("CreateTenant = %v, want initech owned by peter", resp)
		}
		c, err := e.verifier.Verify(context.Background(), resp.GetOwnerToken())
		if err != nil || c.Tenant != "initech" || int64(c.Member) != resp.GetOwner().GetId() || c.TokenID != resp.GetOwnerTokenInfo().GetId() {
			t.Errorf("the owner's token names %+v, %v; want peter of initech", c, err)
		}
		if got := resp.GetOwnerTokenInfo(); got.GetState() != adminv1.TokenState_TOKEN_STATE_LIVE ||
			strings.Join(got.GetScopes(), ",") != "read,comment,write" || got.GetExpireTime().AsTime().After(time.Now().Add(25*time.Hour)) {
			t.Errorf("the owner's token info = %v, want live, every scope, a day", got)
		}
		boards, err := client.Board.Query().Where(board.IsDefault(true)).All(tenantscope.NewContext(context.Background(), tenantID(t, client, "initech")))
		if err != nil || len(boards) != 1 || boards[0].Slug != "main" {
			t.Errorf("initech's boards = %v, %v; want a default board main", boards, err)
		}
		// The owner's first token is an MCP token, which does not
		// administer; with an admin token the operator mints, the new
		// owner manages the new tenant.
		if _, err := e.svc.AddMember(e.callerCtx(t, resp.GetOwnerToken()), &adminv1.AddMemberRequest{Handle: "milton"}); domainerr.KindOf(err) != domainerr.Unauthenticated {
			t.Errorf("the new owner adds a member with the first token = %v, want unauthenticated", err)
		}
		minted, err := e.svc.CreateToken(op, &adminv1.CreateTokenRequest{Tenant: "initech", Member: "peter", Admin: true})
		if err != nil || !minted.GetInfo().GetAdmin() || len(minted.GetInfo().GetScopes()) != 0 {
			t.Fatalf("CreateToken(admin token for peter) = %v, %v; want an admin token with no scopes", minted, err)
		}
		c, err = e.adminVerifier.Verify(context.Background(), minted.GetToken())
		if err != nil || !c.IsAdmin() {
			t.Fatalf("the admin token verifies as %+v, %v; want an admin caller", c, err)
		}
		if _, err := e.svc.AddMember(identity.NewContext(context.Background(), c), &adminv1.AddMemberRequest{Handle: "milton"}); err != nil {
			t.Errorf("the new owner adds a member with an admin token: %v", err)
		}

		for name, tc := range map[string]struct {
			req  *adminv1.CreateTenantRequest
			want domainerr.Kind
		}{
			"taken slug":   {&adminv1.CreateTenantRequest{Slug: "acme", OwnerHandle: "x"}, domainerr.Conflict},
			"bad slug":     {&adminv1.CreateTenantRequest{Slug: "Not A Slug", OwnerHandle: "x"}, domainerr.Invalid},
			"no owner":     {&adminv1.CreateTenantRequest{Slug: "hooli"}, domainerr.Invalid},
			"negative ttl": {&adminv1.CreateTenantRequest{Slug: "hooli", OwnerHandle: "x", OwnerTokenTtl: durationpb.New(-time.Hour)}, domainerr.Invalid},
			"zero ttl":     {&adminv1.CreateTenantRequest{Slug: "hooli", OwnerHandle: "x", OwnerTokenTtl: durationpb.New(0)}, domainerr.Invalid},
			"100-year ttl": {&adminv1.CreateTenantRequest{Slug: "hooli", OwnerHandle: "x", OwnerTokenTtl: durationpb.New(876000 * time.Hour)}, domainerr.Invalid},
		} {
			if _, err := e.svc.CreateTenant(op, tc.req); domainerr.KindOf(err) != tc.want {
				t.Errorf("CreateTenant(%s) = %v, want %v", name, err, tc.want)
			}
		}
	})
}

func tenantID(t *testing.T, client *ent.Client, slug string) int {
	t.Helper()
	for _, tn := range client.Tenant.Query().AllX(context.Background()) {
		if tn.Slug == slug {
			return tn.ID
		}
	}
	t.Fatalf("no tenant %s", slug)
	return 0
}

// callerCtx is the context of a call made with raw, as the worker's
// chain leaves it.
func (e *env) callerCtx(t *testing.T, raw string) context.Context {
	t.Helper()
	c, err := e.verifier.Verify(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	return identity.NewContext(context.Background(), c)
}

// TestListTenantsPages: pages follow one another without overlap.
func TestListTenantsPages(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	op := e.as(t, "operator")
	for _, slug := range []string{"t1", "t2", "t3"} {
		if _, err := e.svc.CreateTenant(op, &adminv1.CreateTenantRequest{Slug: slug, OwnerHandle: "o"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	token := ""
	for range 10 {
		resp, err := e.svc.ListTenants(op, &adminv1.ListTenantsRequest{PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range resp.GetTenants() {
			got = append(got, tn.GetSlug())
		}
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if want := "acme globex t1 t2 t3"; strings.Join(got, " ") != want {
		t.Errorf("ListTenants in pages of 2 = %q, want %q", got, want)
	}
	if _, err := e.svc.ListTenants(op, &adminv1.ListTenantsRequest{PageToken: "%%%"}); domainerr.KindOf(err) != domainerr.Invalid {
		t.Errorf("ListTenants(bad page token) = %v, want invalid", err)
	}
}

// TestTokens: admins mint, list, page and revoke their tenant's tokens;
// the list never holds a token.
func TestTokens(t *testing.T) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		e := newEnv(t, client)
		adam := e.as(t, "acme/adam")
		created, err := e.svc.CreateToken(adam, &adminv1.CreateTokenRequest{
			Member: "bot", Scopes: []string{"write", "read"}, Ttl: durationpb.New(time.Hour), Label: "laptop",
		})
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.verifier.Verify(context.Background(), created.GetToken())
		if err != nil || c.Member != e.members["acme/bot"] || strings.Join(c.Scopes, " ") != "read write" {
			t.Errorf("the minted token names %+v, %v; want bot with read write", c, err)
		}
		e.mint(t, "acme/mia")
		e.mint(t, "acme/bot")
		list, err := e.svc.ListTokens(adam, &adminv1.ListTokensRequest{Member: "bot"})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(list.GetTokens()); n != 2 || list.GetTokens()[0].GetLabel() != "laptop" || list.GetTokens()[0].GetMember() != "bot" {
			t.Errorf("ListTokens(bot) = %v, want bot's 2 tokens, the laptop's first", list)
		}
		if strings.Contains(list.String(), created.GetToken()) {
			t.Errorf("ListTokens shows a token")
		}
		page1, err := e.svc.ListTokens(adam, &adminv1.ListTokensRequest{PageSize: 2})
		if err != nil || len(page1.GetTokens()) != 2 || page1.GetNextPageToken() == "" {
			t.Fatalf("ListTokens(page 1 of 2) = %v, %v", page1, err)
		}
		page2, err := e.svc.ListTokens(adam, &adminv1.ListTokensRequest{PageSize: 2, PageToken: page1.GetNextPageToken()})
		if err != nil || len(page2.GetTokens()) != 1 || page2.GetNextPageToken() != "" {
			t.Errorf("ListTokens(page 2) = %v, %v; want the last token", page2, err)
		}

		id := created.GetInfo().GetId()
		if _, err := e.svc.RevokeToken(e.as(t, "globex/gus"), &adminv1.RevokeTokenRequest{Tenant: "globex", Id: id}); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("another tenant's admin revoking acme's token through globex = %v, want not found", err)
		}
		if _, err := e.svc.RevokeToken(adam, &adminv1.RevokeTokenRequest{Id: id}); err != nil {
			t.Fatal(err)
		}
		if !e.isRevoked(t, id) {
			t.Errorf("token %s is live after RevokeToken", id)
		}
		n, err := e.svc.RevokeMemberTokens(adam, &adminv1.RevokeMemberTokensRequest{Member: "bot"})
		if err != nil || n.GetRevokedTokens() != 1 {
			t.Errorf("RevokeMemberTokens(bot) = %v, %v; want the one live token left", n, err)
		}
		for name, req := range map[string]*adminv1.CreateTokenRequest{
			"no scopes":     {Member: "bot"},
			"unknown scope": {Member: "bot", Scopes: []string{"admin"}},
			"long label":    {Member: "bot", Scopes: []string{"read"}, Label: strings.Repeat("x", 101)},
			"no member":     {Scopes: []string{"read"}},
		} {
			if _, err := e.svc.CreateToken(adam, req); domainerr.KindOf(err) != domainerr.Invalid {
				t.Errorf("CreateToken(%s) = %v, want invalid", name, err)
			}
		}
	})
}

// TestNoSigningKey: a worker without the key cannot mint, and says so;
// everything else works.
func TestNoSigningKey(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	svc, err := admin.New(admin.Config{Client: e.client, Tokens: e.store, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	adam := e.as(t, "acme/adam")
	if _, err := svc.CreateToken(adam, &adminv1.CreateTokenRequest{Member: "bot", Scopes: []string{"read"}}); domainerr.KindOf(err) != domainerr.Unavailable {
		t.Errorf("CreateToken without a key = %v, want unavailable", err)
	}
	if _, err := svc.ListMembers(adam, &adminv1.ListMembersRequest{}); err != nil {
		t.Errorf("ListMembers without a key = %v", err)
	}
}

func TestConfigRequiresLogger(t *testing.T) {
	err := admin.Config{Client: &ent.Client{}, Tokens: &tokens.Store{}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "Logger is required") {
		t.Errorf("Validate(Config without Logger) = %v, want an error saying the Logger is required", err)
	}
}

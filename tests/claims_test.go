package tests

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestTokensMeanWhatWasIssued: with the server's own signing key, a
// viewer's read-only token is re-signed with one claim changed at a time:
// a wider scope, the sub of the tenant's owner, the tenant and sub of
// another tenant's owner, its toolsets removed, a later expiry. Each
// verifies at the front door, and each is refused with 401 by the worker,
// which compares every call's claims with the token's record, in a
// sentence that tells the forger nothing, and logs a security line naming
// the claim. The token as issued still works.
func TestTokensMeanWhatWasIssued(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			ctx := context.Background()
			tenant := h.Sys.First().Tenant.Slug
			vera, err := tenancy.AddMember(ctx, h.Sys.DB, tenant, tenancy.MemberSpec{Handle: "vera", Role: member.RoleViewer})
			if err != nil {
				t.Fatal(err)
			}
			aliceOfGlobex := otherTenant(t, h, "globex", "alice")
			issued := nodetest.Mint(t, h.Sys.DB, h.Sys.Issuer, tokens.CreateRequest{
				Tenant: tenant, Member: vera.ID, Scopes: []string{authz.ScopeRead}, Toolsets: []string{"context", "tasks"}, TTL: 24 * time.Hour,
			})
			if code, _ := nodetest.MCPRefusal(t, h, issued); code != http.StatusOK {
				t.Fatalf("the token as issued: %d, want 200", code)
			}
			owner := strconv.Itoa(h.Sys.First().Owner.ID)
			for claim, edit := range map[string]func(map[string]any){
				"scopes":   func(c map[string]any) { c["scope"] = "read comment write" },
				"member":   func(c map[string]any) { c["sub"] = owner },
				"tenant":   func(c map[string]any) { c["tenant"], c["sub"] = "globex", strconv.Itoa(aliceOfGlobex) },
				"toolsets": func(c map[string]any) { delete(c, "toolsets") },
				"expiry":   func(c map[string]any) { c["exp"] = c["exp"].(float64) + 3600 },
			} {
				forged := resign(t, h, issued, edit)
				code, why := nodetest.MCPRefusal(t, h, forged)
				if code != http.StatusUnauthorized || why != "this token is not one this server issued, or was altered: ask an admin for a new one" {
					t.Errorf("re-signed with another %s: %d %q, want 401 saying it is not one this server issued", claim, code, why)
				}
				poll.Until(t, 5*time.Second, "a security log line naming the "+claim, func() bool {
					return h.Logs.Has(map[string]string{"msg": "security: a token whose claims differ from its record was refused", "claim": claim})
				})
			}
			if code, _ := nodetest.MCPRefusal(t, h, issued); code != http.StatusOK {
				t.Errorf("the token as issued, after the forgeries: %d, want 200", code)
			}
			// Nor does a listen stream open for a forged token, which would
			// hear the other tenant's changes without another worker call.
			toGlobex := resign(t, h, issued, func(c map[string]any) { c["tenant"], c["sub"] = "globex", strconv.Itoa(aliceOfGlobex) })
			if code := listenStatus(t, h, toGlobex); code != http.StatusUnauthorized {
				t.Errorf("a listen stream with a token re-signed for another tenant: %d, want 401", code)
			}
			if code := listenStatus(t, h, issued); code != http.StatusOK {
				t.Errorf("a listen stream with the token as issued: %d, want 200", code)
			}
		})
	}
}

// otherTenant adds a tenant with an owner, and returns the owner's id.
func otherTenant(t *testing.T, h *nodetest.Harness, slug, owner string) int {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	tn := h.Sys.DB.Tenant.Create().SetSlug(slug).SetName(slug).SaveX(ctx)
	m := h.Sys.DB.Member.Create().SetTenantID(tn.ID).SetHandle(owner).SetDisplayName(owner).
		SetKind(member.KindHuman).SetRole(member.RoleOwner).SaveX(tenantscope.NewContext(ctx, tn.ID))
	return m.ID
}

// resign returns raw with its claims changed by edit, signed again with
// the server's current signing key: what someone holding the key could
// make.
func resign(t *testing.T, h *nodetest.Harness, raw string, edit func(map[string]any)) string {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	edit(claims)
	key, err := h.Sys.Keys.Current()
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims(claims))
	tok.Header["kid"] = key.ID
	signed, err := tok.SignedString(key.Private)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// listenStatus opens a subscriptions/listen stream with token and returns
// the status of its answer, closing the stream.
func listenStatus(t *testing.T, h *nodetest.Harness, token string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := listenRequest(t, ctx, h.Sys.Endpoint, token)
	resp.Body.Close()
	return resp.StatusCode
}

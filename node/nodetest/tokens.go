package nodetest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/tokens"
)

// RecordToken mints a token for member of tenant and records it, as
// `taskwire token create` does: workers refuse tokens they have no record
// of.
func RecordToken(t testing.TB, db *ent.Client, issuer *authn.Issuer, tenant string, member int, scopes []string) string {
	t.Helper()
	return Mint(t, db, issuer, tokens.CreateRequest{Tenant: tenant, Member: member, Scopes: scopes, Label: t.Name()})
}

// Mint mints the token req asks for and records it.
func Mint(t testing.TB, db *ent.Client, issuer *authn.Issuer, req tokens.CreateRequest) string {
	t.Helper()
	store, err := tokens.New(tokens.Config{Client: db, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := store.Create(context.Background(), issuer, req)
	if err != nil {
		t.Fatalf("minting a token for member %d of %s: %v", req.Member, req.Tenant, err)
	}
	return token
}

// AdminToken mints an admin token for the member with handle of the
// first tenant, as `taskwire token create --member HANDLE --admin` does.
func (h *Harness) AdminToken(t testing.TB, handle string) string {
	t.Helper()
	tenant := h.Sys.First().Tenant.Slug
	m, err := tenancy.FindMember(context.Background(), h.Sys.DB, tenant, handle)
	if err != nil {
		t.Fatal(err)
	}
	return Mint(t, h.Sys.DB, h.Sys.Issuer, tokens.CreateRequest{Tenant: tenant, Member: m.ID, Admin: true, Label: t.Name()})
}

// ToolsListStatus POSTs a 2026-07-28 tools/list with token to url (with
// Host header host, when set) and returns the HTTP status.
func ToolsListStatus(t testing.TB, url, host, token string) int {
	t.Helper()
	req := MCPRequest(t, url, token, "tools/list", "", toolsList)
	if host != "" {
		req.Host = host
	}
	resp := postMCP(t, req)
	resp.Body.Close()
	return resp.StatusCode
}

// KeyID reads the kid header of a JWT, without verifying it.
func KeyID(t *testing.T, token string) string {
	t.Helper()
	head, _, _ := strings.Cut(token, ".")
	data, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatalf("token header: %v", err)
	}
	var h jwt.MapClaims
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	kid, _ := h["kid"].(string)
	return kid
}

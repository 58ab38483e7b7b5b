package nodetest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
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
	store, err := tokens.New(tokens.Config{Client: db, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := store.Create(context.Background(), issuer, tokens.CreateRequest{Tenant: tenant, Member: member, Scopes: scopes, Label: t.Name()})
	if err != nil {
		t.Fatalf("recording a token: %v", err)
	}
	return token
}

// AdminToken mints an admin token for the member with handle of the
// first tenant, as `taskwire token create --member HANDLE --admin` does.
func (h *Harness) AdminToken(t testing.TB, handle string) string {
	t.Helper()
	ctx := context.Background()
	tenant := h.Sys.First().Tenant.Slug
	m, err := tenancy.FindMember(ctx, h.Sys.DB, tenant, handle)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tokens.New(tokens.Config{Client: h.Sys.DB, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := st.Create(ctx, h.Sys.Issuer, tokens.CreateRequest{Tenant: tenant, Member: m.ID, Admin: true, Label: t.Name()})
	if err != nil {
		t.Fatalf("minting an admin token for %s: %v", handle, err)
	}
	return token
}

// ToolsListStatus POSTs a 2026-07-28 tools/list with token to url (with
// Host header host, when set) and returns the HTTP status.
func ToolsListStatus(t testing.TB, url, host, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
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

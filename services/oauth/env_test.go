package oauth_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/oauth"
	"github.com/taskwire/taskwire/services/sessions"
	"github.com/taskwire/taskwire/services/tokens"
)

const (
	testIssuer   = "https://taskwire.test"
	testAudience = "https://taskwire.test/api/mcp"
	password     = "correct horse battery staple"
	callback     = "https://client.example/callback"
)

// env is a database with two tenants, acme (owner alice, viewer vic,
// member mia) and globex (member alice, as "al"); alice's and vic's
// accounts, signed in; and the OAuth service over it, on a test clock.
type env struct {
	client   *ent.Client
	svc      *oauth.Service
	tokens   *tokens.Store
	issuer   *authn.Issuer
	verifier *authn.Verifier
	clock    *clock
	sent     *recorder
	sessions *sessions.Service
	cookies  map[string]string // "alice" → her console cookie
}

// newEnv builds an env whose service has limits and clients.
func newEnv(t *testing.T, client *ent.Client, limits oauth.Limits, clients oauth.Clients) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{client: client, clock: &clock{t: time.Now().UTC()}, sent: &recorder{}, cookies: map[string]string{}}
	if _, err := tenancy.Bootstrap(ctx, client, tenancy.Config{TenantSlug: "acme", TenantName: "Acme", OwnerHandle: "alice", OwnerName: "Alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Tenant.Create().SetSlug("globex").SetName("Globex").Save(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		tenant, handle string
		role           member.Role
	}{{"acme", "vic", member.RoleViewer}, {"acme", "mia", member.RoleMember}, {"globex", "al", member.RoleMember}} {
		if _, err := tenancy.AddMember(ctx, client, m.tenant, tenancy.MemberSpec{Handle: m.handle, Role: m.role}); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	au, err := audit.New(audit.Config{Client: client, CursorKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	e.sessions, err = sessions.New(sessions.Config{Client: client, Audit: au, Logger: storetest.Logger(), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.account(t, "alice", "acme/alice", "globex/al")
	e.account(t, "vic", "acme/vic")
	e.account(t, "mia", "acme/mia")
	key, _, err := authn.LoadOrCreateKey(filepath.Join(t.TempDir(), "signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	if e.issuer, err = authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: testIssuer, Audience: testAudience}); err != nil {
		t.Fatal(err)
	}
	if e.verifier, err = authn.NewVerifier(authn.VerifierConfig{
		Keys: map[string]ed25519.PublicKey{key.ID: key.Public()}, Issuer: testIssuer, Audience: testAudience,
	}); err != nil {
		t.Fatal(err)
	}
	if e.tokens, err = tokens.New(tokens.Config{Client: client, Events: e.sent, Now: e.clock.Now, Logger: storetest.Logger()}); err != nil {
		t.Fatal(err)
	}
	e.svc, err = oauth.New(oauth.Config{
		Client: client, Tokens: e.tokens, Issuer: e.issuer, Sessions: e.sessions, Audit: au,
		Limits: limits, Clients: clients, Events: e.sent, Logger: storetest.Logger(), Now: e.clock.Now, PublicURL: testIssuer,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// account creates an account for the members named ("acme/alice"), signs
// it in and keeps its cookie under name.
func (e *env) account(t *testing.T, name string, members ...string) {
	t.Helper()
	ctx := context.Background()
	hash, err := sessions.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	email := name + "@example.com"
	acc, err := e.client.Account.Create().SetEmail(email).SetPasswordHash(hash).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range members {
		tenantSlug, handle, _ := strings.Cut(key, "/")
		m, err := tenancy.FindMember(ctx, e.client, tenantSlug, handle)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.client.Member.UpdateOneID(m.ID).SetAccountID(acc.ID).Exec(tenantscope.NewContext(ctx, m.TenantID)); err != nil {
			t.Fatal(err)
		}
	}
	e.signIn(t, name)
}

// signIn signs name in again, keeping the new cookie.
func (e *env) signIn(t *testing.T, name string) {
	t.Helper()
	email := name + "@example.com"
	resp, err := e.sessions.SignIn(context.Background(), &taskwirev1.SignInRequest{
		Method: &taskwirev1.SignInRequest_Password{Password: &taskwirev1.PasswordSignIn{Email: email, Password: password}},
	})
	if err != nil {
		t.Fatalf("SignIn(%s) = %v", email, err)
	}
	e.cookies[name] = resp.GetCookie()
}

// run runs fn on every backend with a fresh env of the default limits
// and clients.
func run(t *testing.T, fn func(t *testing.T, e *env)) {
	runWith(t, oauth.Limits{}, oauth.Clients{}, fn)
}

func runWith(t *testing.T, limits oauth.Limits, clients oauth.Clients, fn func(t *testing.T, e *env)) {
	storetest.Run(t, func(t *testing.T, client *ent.Client) {
		fn(t, newEnv(t, client, limits, clients))
	})
}

// register registers a client with metadata, failing the test on a
// refusal; it returns the response document.
func (e *env) register(t *testing.T, metadata map[string]any) map[string]any {
	t.Helper()
	resp := e.registerResp(t, metadata, "192.0.2.1")
	if resp.GetError() != nil {
		t.Fatalf("RegisterClient = %v, want a client", resp.GetError())
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(resp.GetClientJson()), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func (e *env) registerResp(t *testing.T, metadata map[string]any, addr string) *taskwirev1.RegisterClientResponse {
	t.Helper()
	b, _ := json.Marshal(metadata)
	resp, err := e.svc.RegisterClient(context.Background(), &taskwirev1.RegisterClientRequest{MetadataJson: string(b), ClientAddr: addr})
	if err != nil {
		t.Fatalf("RegisterClient = %v", err)
	}
	return resp
}

// publicClient registers a public client redirecting to callback and
// returns its id.
func (e *env) publicClient(t *testing.T) string {
	t.Helper()
	doc := e.register(t, map[string]any{"client_name": "Claude", "redirect_uris": []string{callback}, "token_endpoint_auth_method": "none"})
	return doc["client_id"].(string)
}

// pkce is a verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE(seed string) pkce {
	v := strings.Repeat(seed, 64)[:64]
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authReq is an authorization request of client with p.
func authReq(client string, p pkce) *taskwirev1.AuthorizationRequest {
	return &taskwirev1.AuthorizationRequest{
		ResponseType: "code", ClientId: client, RedirectUri: callback, State: "xyz",
		CodeChallenge: p.challenge, CodeChallengeMethod: "S256", Resource: testAudience,
	}
}

// approve approves r as who in tenant, failing the test on a refusal; it
// returns the code.
func (e *env) approve(t *testing.T, who, tenant string, r *taskwirev1.AuthorizationRequest) string {
	t.Helper()
	resp, err := e.svc.Approve(context.Background(), &taskwirev1.ApproveRequest{Cookie: e.cookies[who], Request: r, Tenant: tenant})
	if err != nil {
		t.Fatalf("Approve = %v", err)
	}
	if resp.GetError() != nil || resp.GetCode() == "" {
		t.Fatalf("Approve = %v, want a code", resp)
	}
	return resp.GetCode()
}

// exchange redeems code for client with p's verifier.
func (e *env) exchange(t *testing.T, client, code string, p pkce) *taskwirev1.TokenResponse {
	t.Helper()
	return e.token(t, &taskwirev1.TokenRequest{GrantType: "authorization_code", ClientId: client, Code: code,
		RedirectUri: callback, CodeVerifier: p.verifier, Resource: testAudience, AuthMethod: "none"})
}

func (e *env) token(t *testing.T, req *taskwirev1.TokenRequest) *taskwirev1.TokenResponse {
	t.Helper()
	resp, err := e.svc.Token(context.Background(), req)
	if err != nil {
		t.Fatalf("Token(%s) = %v", req.GetGrantType(), err)
	}
	return resp
}

func refreshReq(client, refresh string) *taskwirev1.TokenRequest {
	return &taskwirev1.TokenRequest{GrantType: "refresh_token", ClientId: client, RefreshToken: refresh, AuthMethod: "none"}
}

// connect runs the authorization of a new public client for alice in
// acme, returning the client and its first tokens.
func (e *env) connect(t *testing.T) (string, *taskwirev1.TokenResponse) {
	t.Helper()
	client := e.publicClient(t)
	p := newPKCE("a")
	resp := e.exchange(t, client, e.approve(t, "alice", "acme", authReq(client, p)), p)
	if resp.GetError() != nil {
		t.Fatalf("Token = %v, want tokens", resp.GetError())
	}
	return client, resp
}

// wantError fails the test unless got is an OAuth error with code.
func wantError(t *testing.T, what string, got *taskwirev1.OAuthError, code string) {
	t.Helper()
	if got.GetCode() != code {
		t.Errorf("%s: error = %v, want %s", what, got, code)
	}
	if got != nil && !strings.HasSuffix(got.GetDescription(), ".") {
		t.Errorf("%s: description %q is not a sentence", what, got.GetDescription())
	}
}

// wantErrorSaying is wantError, and the description must hold text.
func wantErrorSaying(t *testing.T, what string, got *taskwirev1.OAuthError, code, text string) {
	t.Helper()
	wantError(t, what, got, code)
	if !strings.Contains(got.GetDescription(), text) {
		t.Errorf("%s: description %q does not say %q", what, got.GetDescription(), text)
	}
}

// caller verifies an access token, failing the test unless it verifies
// and matches its record as the worker's claim check requires.
func (e *env) caller(t *testing.T, raw string) (identity.Caller, tokens.Record) {
	t.Helper()
	c, err := e.verifier.Verify(context.Background(), raw)
	if err != nil {
		t.Fatalf("Verify = %v, want a valid token", err)
	}
	rec, err := e.tokens.Lookup(context.Background(), c.TokenID)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Known() {
		t.Fatalf("token %s has no record", c.TokenID)
	}
	if claim := rec.Mismatch(c); claim != "" {
		t.Fatalf("token %s differs from its record in %s", c.TokenID, claim)
	}
	return c, rec
}

// revoked reports whether the access token raw is revoked in the tokens
// table.
func (e *env) revoked(t *testing.T, raw string) bool {
	t.Helper()
	_, rec := e.caller(t, raw)
	return rec.Revoked
}

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// recorder keeps the revocations and tenant events broadcast.
type recorder struct {
	mu     sync.Mutex
	sent   []events.Revocation
	events []string // "acme tools 42"
}

func (r *recorder) Publish(tenant string, ev events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %s %d", tenant, ev.Kind, ev.Member))
	return nil
}

// published returns the tenant events broadcast so far.
func (r *recorder) published() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recorder) PublishRevocation(ev events.Revocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, ev)
	return nil
}

// broadcast reports whether the revocation of jti was broadcast.
func (r *recorder) broadcast(jti string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.sent {
		if ev.JTI == jti {
			return true
		}
	}
	return false
}

// systemCtx reads across tenants.
func systemCtx() context.Context {
	return privacy.DecisionContext(context.Background(), privacy.Allow)
}

// kindOf is the kind of err, as the worker turns it into a gRPC code.
func kindOf(err error) domainerr.Kind {
	return domainerr.KindOf(err)
}

func oauthLimits(access, idle, grant time.Duration) oauth.Limits {
	return oauth.Limits{AccessTTL: access, RefreshIdle: idle, GrantLifetime: grant}
}

func noClients() oauth.Clients { return oauth.Clients{} }

// sha256Hex is the hex SHA-256 of s, as --oauth-clients holds secrets.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

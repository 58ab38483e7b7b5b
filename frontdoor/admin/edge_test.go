package admin_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/worker/workertest"
)

const operatorSecret = "an-operator-secret-of-at-least-32-bytes"

// fakeWorker is an AdminService that records the metadata of each call
// and answers ListMembers with the tenant it was asked for, or with err.
type fakeWorker struct {
	adminv1.UnimplementedAdminServiceServer
	mu   sync.Mutex
	seen []metadata.MD
	err  error
}

func (f *fakeWorker) ListMembers(ctx context.Context, req *adminv1.ListMembersRequest) (*adminv1.ListMembersResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, md)
	if f.err != nil {
		return nil, f.err
	}
	return &adminv1.ListMembersResponse{
		Members:       []*adminv1.Member{{Handle: req.GetTenant(), DisplayName: map[bool]string{true: "removed too"}[req.GetShowRemoved()]}},
		NextPageToken: "",
	}, nil
}

func (f *fakeWorker) last() metadata.MD {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		return nil
	}
	return f.seen[len(f.seen)-1]
}

// fakeVerifier knows one admin token, and refuses an MCP token as the
// real verifier of admin tokens does.
type fakeVerifier struct{}

func (fakeVerifier) Verify(_ context.Context, raw string) (identity.Caller, error) {
	switch raw {
	case "tenant-token":
		return identity.Caller{Tenant: "acme", Member: 7, TokenID: "jti-7", Kind: identity.KindAdmin}, nil
	case "mcp-token":
		return identity.Caller{}, &authn.TokenError{Reason: authn.ReasonOtherKind, Message: "this is an MCP token, which cannot administer"}
	case "wrong-kind":
		return identity.Caller{Tenant: "acme", Member: 7, TokenID: "jti-8", Kind: identity.KindMCP}, nil
	case "garbage":
		return identity.Caller{}, errors.New("some failure")
	}
	return identity.Caller{}, &authn.TokenError{Reason: authn.ReasonExpired, Message: "the token expired at 2026-01-02T03:04:05Z: ask for a new one"}
}

type testEdge struct {
	edge   *admin.Edge
	worker *fakeWorker
	url    string
}

// startEdge serves an Edge in front of a fake worker, over HTTP/1.1 and
// HTTP/2 without TLS, as the front door's server does.
func startEdge(t *testing.T) *testEdge {
	t.Helper()
	w := &fakeWorker{}
	srv := grpc.NewServer()
	adminv1.RegisterAdminServiceServer(srv, w)
	conn := workertest.Dial(t, srv.Serve, srv.Stop)
	op, err := admin.NewOperatorSecret(operatorSecret)
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _ := ed25519.GenerateKey(nil)
	e, err := admin.New(admin.Config{
		Conn: conn, Verifier: fakeVerifier{}, Operator: op, MaxBodyBytes: 1 << 10, Logger: discardLog,
		Keys: []admin.PublicKey{{ID: "k1", Key: pub}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(e.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the MCP endpoint", http.StatusTeapot)
	})))
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(func() { hs.Close(); e.Stop() })
	return &testEdge{edge: e, worker: w, url: hs.URL}
}

// post POSTs body to path with the bearer and returns status and body.
func (te *testEdge) post(t *testing.T, path, bearer, contentType, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, te.url+path, strings.NewReader(body))
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestJSON: both spellings of field names are accepted, the answer is in
// lowerCamelCase with every field, and the worker hears who calls.
func TestJSON(t *testing.T) {
	te := startEdge(t)
	for _, body := range []string{`{"tenant":"acme","show_removed":true}`, `{"tenant":"acme","showRemoved":true}`} {
		code, raw := te.post(t, "/admin/v1/ListMembers", operatorSecret, "application/json", body)
		var got map[string]any
		if err := json.Unmarshal([]byte(raw), &got); err != nil || code != http.StatusOK {
			t.Errorf("ListMembers(%s) = %d %s, want 200 and JSON", body, code, raw)
			continue
		}
		want := map[string]any{"nextPageToken": "", "members": []any{map[string]any{
			"id": "0", "handle": "acme", "displayName": "removed too",
			"kind": "MEMBER_KIND_UNSPECIFIED", "role": "MEMBER_ROLE_UNSPECIFIED", "sponsor": "",
		}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ListMembers(%s) (-want +got):\n%s", body, diff)
		}
	}
	if md := te.worker.last(); md.Get(identity.MDOperator)[0] != "1" || len(md.Get(identity.MDTenant)) != 0 {
		t.Errorf("an operator's call reached the worker with %v, want the operator mark and no caller", md)
	}
	if code, _ := te.post(t, "/admin/v1/ListMembers", "tenant-token", "", ""); code != http.StatusOK {
		t.Errorf("ListMembers with an empty body = %d, want 200", code)
	}
	md := te.worker.last()
	if got := [...]string{first(md, identity.MDTenant), first(md, identity.MDMember), first(md, identity.MDKind), first(md, identity.MDToken)}; got != [...]string{"acme", "7", "admin", "jti-7"} || len(md.Get(identity.MDOperator)) != 0 {
		t.Errorf("a member's call reached the worker with %v, want acme/7 with an admin token and no operator mark", md)
	}
}

func first(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

// TestJSONErrors: each failure is {"code","message"} with its HTTP status.
func TestJSONErrors(t *testing.T) {
	te := startEdge(t)
	for _, tc := range []struct {
		name, path, bearer, ctype, body string
		workerErr                       error
		status                          int
		code, message                   string
	}{
		{"no credential", "/admin/v1/ListMembers", "", "", "", nil, 401, "unauthenticated",
			`send an admin credential as "Authorization: Bearer …": ` + admin.HowToGetCredential},
		{"expired token", "/admin/v1/ListMembers", "stale", "", "", nil, 401, "unauthenticated",
			"the token expired at 2026-01-02T03:04:05Z: ask for a new one"},
		{"MCP token", "/admin/v1/ListMembers", "mcp-token", "", "", nil, 401, "unauthenticated",
			"this is an MCP token, which cannot administer: " + admin.HowToGetCredential},
		{"MCP caller", "/admin/v1/ListMembers", "wrong-kind", "", "", nil, 401, "unauthenticated",
			"this is an MCP token, which cannot administer: " + admin.HowToGetCredential},
		{"unexplained failure", "/admin/v1/ListMembers", "garbage", "", "", nil, 401, "unauthenticated",
			"the bearer token is not valid: " + admin.HowToGetCredential},
		{"unknown method", "/admin/v1/DropTables", operatorSecret, "", "", nil, 404, "not_found",
			`no admin method "DropTables": POST to /admin/v1/<Method>, e.g. /admin/v1/ListMembers`},
		{"bad json", "/admin/v1/ListMembers", operatorSecret, "application/json", `{"tenant":1}`, nil, 400, "invalid_argument", ""},
		{"unknown field", "/admin/v1/ListMembers", operatorSecret, "application/json", `{"tenantx":"a"}`, nil, 400, "invalid_argument", ""},
		{"not json", "/admin/v1/ListMembers", operatorSecret, "text/plain", `tenant=acme`, nil, 415, "invalid_argument",
			"send the body as Content-Type: application/json"},
		{"too large", "/admin/v1/ListMembers", operatorSecret, "application/json", `{"tenant":"` + strings.Repeat("a", 2000) + `"}`, nil, 413,
			"invalid_argument", "the body is larger than 1024 bytes"},
		{"denied", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.PermissionDenied, "You are a viewer."), 403,
			"permission_denied", "You are a viewer."},
		{"not found", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.NotFound, `no tenant "x"`), 404, "not_found", `no tenant "x"`},
		{"last owner", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.FailedPrecondition, "last owner"), 409,
			"failed_precondition", "last owner"},
		{"invalid", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.InvalidArgument, "bad"), 400, "invalid_argument", "bad"},
		{"internal", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.Internal, "internal error (ref 1)"), 500,
			"internal", "internal error (ref 1)"},
		{"unavailable", "/admin/v1/ListMembers", operatorSecret, "", "", status.Error(codes.Unavailable, "try again"), 503, "unavailable", "try again"},
		{"quota", "/admin/v1/ListMembers", operatorSecret, "", "", access.QuotaExceeded("tenant acme has 1000 members, its quota"), 409,
			"resource_exhausted", "tenant acme has 1000 members, its quota"},
	} {
		te.worker.err = tc.workerErr
		code, body := te.post(t, tc.path, tc.bearer, tc.ctype, tc.body)
		var got struct{ Code, Message string }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Errorf("%s: body %q is not a JSON error", tc.name, body)
			continue
		}
		if code != tc.status || got.Code != tc.code || (tc.message != "" && got.Message != tc.message) {
			t.Errorf("%s = %d %+v, want %d %s %q", tc.name, code, got, tc.status, tc.code, tc.message)
		}
	}
	resp, err := http.Get(te.url + "/admin/v1/ListMembers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET = %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestGRPC: the same API over gRPC, authenticated from the authorization
// metadata; what else the client sends never reaches the worker.
func TestGRPC(t *testing.T) {
	te := startEdge(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(te.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := adminv1.NewAdminServiceClient(conn)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+operatorSecret)
	resp, err := client.ListMembers(ctx, &adminv1.ListMembersRequest{Tenant: "globex"})
	if err != nil || resp.GetMembers()[0].GetHandle() != "globex" {
		t.Fatalf("ListMembers over gRPC = %v, %v; want globex's", resp, err)
	}
	if md := te.worker.last(); first(md, identity.MDOperator) != "1" {
		t.Errorf("the worker saw %v, want the operator mark", md)
	}

	// A member forging the operator mark, or a caller, stays a member.
	forged := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer tenant-token",
		identity.MDOperator, "1", identity.MDTenant, "globex", identity.MDInternalKey, "guess")
	if _, err := client.ListMembers(forged, &adminv1.ListMembersRequest{}); err != nil {
		t.Fatal(err)
	}
	md := te.worker.last()
	if len(md.Get(identity.MDOperator)) != 0 || !cmp.Equal(md.Get(identity.MDTenant), []string{"acme"}) || len(md.Get(identity.MDInternalKey)) != 0 {
		t.Errorf("a member's forged metadata reached the worker: %v", md)
	}

	if _, err := client.ListMembers(context.Background(), &adminv1.ListMembersRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("ListMembers without credentials = %v, want Unauthenticated", err)
	}
	te.worker.err = status.Error(codes.FailedPrecondition, "last owner")
	if _, err := client.ListMembers(ctx, &adminv1.ListMembersRequest{}); status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "last owner" {
		t.Errorf("a refusal over gRPC = %v, want the worker's status", err)
	}
}

// TestOtherPathsPassThrough: the MCP endpoint and the rest reach next.
func TestOtherPathsPassThrough(t *testing.T) {
	te := startEdge(t)
	if code, _ := te.post(t, "/api/mcp", operatorSecret, "application/json", "{}"); code != http.StatusTeapot {
		t.Errorf("POST /api/mcp = %d, want it passed to the MCP handler", code)
	}
}

// TestJWKS: the public keys as RFC 8037 OKP keys.
func TestJWKS(t *testing.T) {
	w := &fakeWorker{}
	srv := grpc.NewServer()
	adminv1.RegisterAdminServiceServer(srv, w)
	conn := workertest.Dial(t, srv.Serve, srv.Stop)
	current, _, _ := ed25519.GenerateKey(nil)
	retired, _, _ := ed25519.GenerateKey(nil)
	e, err := admin.New(admin.Config{Conn: conn, Verifier: fakeVerifier{}, Logger: discardLog, Keys: []admin.PublicKey{{ID: "now", Key: current}, {ID: "old", Key: retired}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	e.Wrap(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, admin.JWKSPath, nil))
	var got struct{ Keys []map[string]string }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
		t.Fatalf("GET %s = %d %s", admin.JWKSPath, rec.Code, rec.Body)
	}
	want := []map[string]string{
		{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(current), "kid": "now", "alg": "EdDSA", "use": "sig"},
		{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(retired), "kid": "old", "alg": "EdDSA", "use": "sig"},
	}
	if diff := cmp.Diff(want, got.Keys); diff != "" {
		t.Errorf("JWKS (-want +got):\n%s", diff)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/jwk-set+json" {
		t.Errorf("Content-Type = %q, want application/jwk-set+json", ct)
	}
}

// TestOperatorSecret: only the secret itself matches, and short secrets
// are refused.
func TestOperatorSecret(t *testing.T) {
	op, err := admin.NewOperatorSecret(operatorSecret)
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]bool{operatorSecret: true, operatorSecret + "x": false, "": false, operatorSecret[:31]: false} {
		if got := op.Matches(raw); got != want {
			t.Errorf("Matches(%q) = %v, want %v", raw, got, want)
		}
	}
	if _, err := admin.NewOperatorSecret(strings.Repeat("x", 31)); err == nil {
		t.Errorf("NewOperatorSecret(31 bytes) = nil error, want a refusal")
	}
	var none *admin.OperatorSecret
	if none.Matches(operatorSecret) {
		t.Errorf("a nil OperatorSecret matches")
	}
}

// failingConn fails every call as a broken connection does.
type failingConn struct{ grpc.ClientConnInterface }

func (failingConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	return errors.New("dial tcp 10.0.0.7:9000: connection refused")
}

// TestWorkerUnreachable: a failure that is no status is Unavailable,
// without its text, and says when to retry.
func TestWorkerUnreachable(t *testing.T) {
	op, _ := admin.NewOperatorSecret(operatorSecret)
	e, err := admin.New(admin.Config{Conn: failingConn{}, Verifier: fakeVerifier{}, Operator: op, Logger: discardLog})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/admin/v1/ListTenants", nil)
	req.Header.Set("Authorization", "Bearer "+operatorSecret)
	e.Wrap(http.NotFoundHandler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "10.0.0.7") || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("ListTenants with no worker = %d %s (Retry-After %q), want 503 naming no host, Retry-After 1", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
}

// TestReflection: grpcurl finds AdminService without .proto files.
func TestReflection(t *testing.T) {
	te := startEdge(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(te.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "taskwire.admin.v1.AdminService"},
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if files := resp.GetFileDescriptorResponse().GetFileDescriptorProto(); len(files) == 0 {
		t.Errorf("reflection of AdminService = %v, want its file", resp)
	}
	stream.CloseSend()
}

// discardLog is the logger of tests that read no log.
var discardLog = slog.New(slog.DiscardHandler)

// TestNewNeedsLogger: an edge without a logger would hide the failures it
// answers with "internal error", so New refuses it.
func TestNewNeedsLogger(t *testing.T) {
	_, err := admin.New(admin.Config{Conn: failingConn{}, Verifier: fakeVerifier{}})
	if err == nil || !strings.Contains(err.Error(), "Logger") {
		t.Errorf("New without Logger = %v, want an error asking for one", err)
	}
}

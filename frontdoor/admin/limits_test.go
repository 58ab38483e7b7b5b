package admin_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/worker/workertest"
)

// stopped is a clock that never moves: no bucket refills during a test.
func stopped() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }

// startLimitedEdge serves an Edge with the limits given, in front of a
// fake worker.
func startLimitedEdge(t *testing.T, limits frontdoor.RateLimits, throttle frontdoor.AuthThrottleConfig) *testEdge {
	t.Helper()
	w := &fakeWorker{}
	srv := grpc.NewServer()
	adminv1.RegisterAdminServiceServer(srv, w)
	conn := workertest.Dial(t, srv.Serve, srv.Stop)
	op, _ := admin.NewOperatorSecret(operatorSecret)
	limits.Now, throttle.Now = stopped, stopped
	rl, err := frontdoor.NewRateLimiter(limits)
	if err != nil {
		t.Fatal(err)
	}
	th, err := frontdoor.NewAuthThrottle(throttle)
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _ := ed25519.GenerateKey(nil)
	e, err := admin.New(admin.Config{
		Conn: conn, Verifier: fakeVerifier{}, Operator: op, Keys: []admin.PublicKey{{ID: "k1", Key: pub}},
		RateLimiter: rl, AuthThrottle: th, Logger: discardLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(e.Wrap(http.NotFoundHandler()))
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(func() { hs.Close(); e.Stop() })
	return &testEdge{edge: e, worker: w, url: hs.URL}
}

// postJSON POSTs body and returns status, Retry-After and the error's
// code and message.
func (te *testEdge) postJSON(t *testing.T, method, bearer, body string, header ...string) (int, string, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, te.url+"/admin/v1/"+method, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Code, Message string }
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, resp.Header.Get("Retry-After"), e.Code, e.Message
}

// TestAdminRateLimits: each credential and each tenant a call names has
// a budget; a call over either is 429 with Retry-After, before any worker.
func TestAdminRateLimits(t *testing.T) {
	te := startLimitedEdge(t, frontdoor.RateLimits{
		Token:  frontdoor.RateLimit{PerSecond: 0.5, Burst: 2},
		Tenant: frontdoor.RateLimit{PerSecond: 0.5, Burst: 3},
	}, frontdoor.AuthThrottleConfig{})
	ok := func(bearer, body string) {
		t.Helper()
		if code, _, _, msg := te.postJSON(t, "ListMembers", bearer, body); code != http.StatusOK {
			t.Fatalf("ListMembers %s = %d %s, want 200", body, code, msg)
		}
	}
	limited := func(bearer, body, wantMsg string) {
		t.Helper()
		code, retry, name, msg := te.postJSON(t, "ListMembers", bearer, body)
		if code != http.StatusTooManyRequests || name != "resource_exhausted" || retry != "2" || !strings.Contains(msg, wantMsg) {
			t.Errorf("ListMembers %s over its budget = %d %s %q, Retry-After %q; want 429 resource_exhausted saying %q, Retry-After 2",
				body, code, name, msg, retry, wantMsg)
		}
	}
	ok(operatorSecret, `{"tenant":"acme"}`)
	ok(operatorSecret, `{"tenant":"acme"}`)
	limited(operatorSecret, `{"tenant":"globex"}`, "the budget of this credential (0.5/s, burst 2) is spent; retry in 2 s")
	seen := te.worker.count()
	ok("tenant-token", `{}`) // acme's own: its third call
	limited("tenant-token", `{}`, "too many admin calls on tenant acme: its budget (0.5/s, burst 3)")
	if n := te.worker.count(); n != seen+1 {
		t.Errorf("the worker saw %d calls after the tenant token's two, want 1: a refused call reaches no worker", n-seen)
	}
}

// TestAdminRateLimitsOwnTenant: a tenant token's calls are charged to its
// own tenant, even those naming another (which the worker refuses), so
// one tenant's admins cannot spend another tenant's budget.
func TestAdminRateLimitsOwnTenant(t *testing.T) {
	te := startLimitedEdge(t, frontdoor.RateLimits{Tenant: frontdoor.RateLimit{PerSecond: 0.5, Burst: 3}}, frontdoor.AuthThrottleConfig{})
	for i := range 3 {
		if code, _, _, msg := te.postJSON(t, "ListMembers", "tenant-token", `{"tenant":"globex"}`); code != http.StatusOK {
			t.Fatalf("acme's call %d naming globex = %d %s, want it to reach the worker", i+1, code, msg)
		}
	}
	code, _, _, msg := te.postJSON(t, "ListMembers", "tenant-token", `{"tenant":"globex"}`)
	if code != http.StatusTooManyRequests || !strings.Contains(msg, "on tenant acme") {
		t.Errorf("acme's fourth call naming globex = %d %q, want 429 on acme's budget", code, msg)
	}
	if code, _, _, msg := te.postJSON(t, "ListMembers", operatorSecret, `{"tenant":"globex"}`); code != http.StatusOK {
		t.Errorf("an operator's call on globex after acme's = %d %s, want 200: globex's budget is untouched", code, msg)
	}
}

// TestAdminRateLimitsGRPC: a burst of CreateToken over gRPC meets the
// credential's budget: RESOURCE_EXHAUSTED with a RetryInfo and a
// retry-after header.
func TestAdminRateLimitsGRPC(t *testing.T) {
	te := startLimitedEdge(t, frontdoor.RateLimits{
		Token:  frontdoor.RateLimit{PerSecond: 5, Burst: 20},
		Tenant: frontdoor.RateLimit{PerSecond: 20, Burst: 50},
	}, frontdoor.AuthThrottleConfig{})
	client := te.grpcClient(t)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer tenant-token")
	for i := range 20 {
		// The fake worker does not implement CreateToken: a call that
		// got through is Unimplemented.
		if _, err := client.CreateToken(ctx, &adminv1.CreateTokenRequest{Member: "claude"}); status.Code(err) != codes.Unimplemented {
			t.Fatalf("CreateToken %d = %v, want it to reach the worker", i+1, err)
		}
	}
	var header metadata.MD
	_, err := client.CreateToken(ctx, &adminv1.CreateTokenRequest{Member: "claude"}, grpc.Header(&header))
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "burst 20") {
		t.Fatalf("CreateToken 21 = %v, want RESOURCE_EXHAUSTED naming the budget", err)
	}
	var delay time.Duration
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			delay = ri.GetRetryDelay().AsDuration()
		}
	}
	if delay <= 0 || delay > time.Second || len(header.Get("retry-after")) != 1 || header.Get("retry-after")[0] != "1" {
		t.Errorf("RetryInfo %v, retry-after %v; want a delay of at most 1 s (5/s) and retry-after 1", delay, header.Get("retry-after"))
	}
}

func (te *testEdge) grpcClient(t *testing.T) adminv1.AdminServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(te.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return adminv1.NewAdminServiceClient(conn)
}

// TestAdminAuthThrottle: after 3 refused credentials from one address,
// its calls are refused before any credential is checked, in JSON and
// over gRPC alike; a forged X-Forwarded-For from a peer that is no
// trusted proxy changes nothing.
func TestAdminAuthThrottle(t *testing.T) {
	te := startLimitedEdge(t, frontdoor.RateLimits{}, frontdoor.AuthThrottleConfig{Failures: 3, Window: time.Minute})
	for i := range 2 {
		if code, _, _, _ := te.postJSON(t, "ListMembers", "guess", `{}`); code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, code)
		}
	}
	client := te.grpcClient(t)
	guess := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer guess")
	if _, err := client.ListMembers(guess, &adminv1.ListMembersRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("a gRPC guess = %v, want Unauthenticated", err)
	}
	code, retry, name, msg := te.postJSON(t, "ListMembers", operatorSecret, `{"tenant":"acme"}`, "X-Forwarded-For", "198.51.100.7")
	if code != http.StatusTooManyRequests || name != "resource_exhausted" || retry != "20" || !strings.Contains(msg, "(3 in 1 min)") {
		t.Errorf("the operator from a throttled address = %d %s %q, Retry-After %q; want 429, Retry-After 20", code, name, msg, retry)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+operatorSecret)
	if _, err := client.ListMembers(ctx, &adminv1.ListMembersRequest{Tenant: "acme"}); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("over gRPC from a throttled address = %v, want RESOURCE_EXHAUSTED", err)
	}
	if n := te.worker.count(); n != 0 {
		t.Errorf("the worker saw %d calls, want none", n)
	}
}

func (f *fakeWorker) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

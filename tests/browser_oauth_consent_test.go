package tests

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/console"
)

// TestBrowserOAuthConsent: a person who follows an assistant's
// authorization link signs in, is brought back to the consent page, and
// on Approve the browser lands at the client's redirect URI on another
// origin with the code, state and iss: the console's CSP (form-action
// 'self') must not stop the form's redirect there. The workers are a
// small in-process stand-in, so that this checks the browser's side of
// the console alone; the full flows with real clients are the e2e tests'.
func TestBrowserOAuthConsent(t *testing.T) {
	landed := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/cb" {
			select {
			case landed <- r.URL.Query():
			default:
			}
		}
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Client</title></head><body><main id="client">back</main></body></html>`)
	}))
	defer client.Close()
	base := consentSite(t, client.URL+"/cb")
	p := newPerson(t, &site{base: base})

	q := url.Values{"response_type": {"code"}, "client_id": {"https://app.example/cimd"}, "redirect_uri": {client.URL + "/cb"},
		"state": {"xyz"}, "code_challenge": {"chal"}, "code_challenge_method": {"S256"}, "resource": {base + "/api/mcp"}}
	authorize := "/oauth/authorize?" + q.Encode()
	p.open(authorize)
	if p.count("form#signin") != 1 {
		t.Fatalf("the authorization link signed out shows %s without form#signin", p.path())
	}
	p.submit("form#signin", map[string]string{"email": "ada@example.com", "password": "pw"}, "")
	if p.path() != authorize || p.count("form#consent #approve") != 1 {
		t.Fatalf("signing in went to %s, want back to the consent page %s", p.path(), authorize)
	}
	if got := p.text("main#oauth-consent h1"); !strings.Contains(got, "Test App") {
		t.Errorf("the consent page's heading = %q, want it to name the client", got)
	}
	p.checkPage("the consent page", "")
	if p.count("#consent-local") != 1 {
		t.Error("the consent page does not warn that the redirect is to this computer")
	}
	p.submit("form#consent", nil, "#approve")
	if p.count("main#client") != 1 {
		t.Fatalf("approving left the browser at %s, want the client's redirect URI (did the CSP's form-action block it?)", p.path())
	}
	got := <-landed
	if got.Get("code") != "code-1" || got.Get("state") != "xyz" || got.Get("iss") != base {
		t.Errorf("the client was sent %v, want code-1, state xyz and iss %s", got, base)
	}
}

// consentSite serves a console in front of stand-in workers that know
// one person (any password) and one client redirecting to redirectURI,
// and returns its URL.
func consentSite(t *testing.T, redirectURI string) string {
	t.Helper()
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	w := &consentWorker{redirectURI: redirectURI}
	taskwirev1.RegisterSessionServiceServer(gs, w)
	taskwirev1.RegisterOAuthServiceServer(gs, w)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	con, err := console.New(console.Config{Conn: conn, PublicURL: srv.URL, CSRFKeys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	handler = con
	return srv.URL
}

// consentWorker stands in for the workers' session and OAuth services.
type consentWorker struct {
	taskwirev1.UnimplementedSessionServiceServer
	taskwirev1.UnimplementedOAuthServiceServer
	redirectURI string
}

var consentMember = &taskwirev1.Membership{Tenant: "acme", TenantName: "Acme", MemberId: 7, Handle: "ada", Role: taskwirev1.MemberRole_MEMBER_ROLE_OWNER}

func (*consentWorker) SignIn(context.Context, *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	return &taskwirev1.SignInResponse{Cookie: "sid1.secret", Session: &taskwirev1.Session{Id: "sid1"},
		Account: &taskwirev1.Account{Id: 1, Email: "ada@example.com", HasPassword: true}}, nil
}

func (*consentWorker) CheckSession(_ context.Context, req *taskwirev1.CheckSessionRequest) (*taskwirev1.CheckSessionResponse, error) {
	if req.GetCookie() != "sid1.secret" {
		return nil, status.Error(codes.Unauthenticated, "Sign in.")
	}
	return &taskwirev1.CheckSessionResponse{Session: &taskwirev1.Session{Id: "sid1"},
		Account: &taskwirev1.Account{Id: 1, Email: "ada@example.com", HasPassword: true}, Memberships: []*taskwirev1.Membership{consentMember}}, nil
}

func (w *consentWorker) CheckAuthorization(_ context.Context, req *taskwirev1.CheckAuthorizationRequest) (*taskwirev1.CheckAuthorizationResponse, error) {
	if req.GetRequest().GetRedirectUri() != w.redirectURI {
		return &taskwirev1.CheckAuthorizationResponse{Error: &taskwirev1.OAuthError{Code: "invalid_request", Description: "Not the client's redirect URI."}}, nil
	}
	return &taskwirev1.CheckAuthorizationResponse{RedirectUri: w.redirectURI, Consent: &taskwirev1.Consent{
		ClientId: "https://app.example/cimd", ClientName: "Test App", ClientKind: "metadata", RedirectHost: "127.0.0.1", LocalOnly: true,
		Scopes: []string{"read", "comment", "write"}, Tenants: []*taskwirev1.ConsentTenant{{Tenant: "acme", TenantName: "Acme",
			AssistantRole: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER, AssistantHandle: "ada-test-app"}}}}, nil
}

func (w *consentWorker) Approve(ctx context.Context, req *taskwirev1.ApproveRequest) (*taskwirev1.ApproveResponse, error) {
	check, _ := w.CheckAuthorization(ctx, &taskwirev1.CheckAuthorizationRequest{Cookie: req.GetCookie(), Request: req.GetRequest()})
	if check.GetError() != nil || req.GetTenant() != "acme" {
		return &taskwirev1.ApproveResponse{Error: &taskwirev1.OAuthError{Code: "invalid_request", Description: "Refused."}}, nil
	}
	return &taskwirev1.ApproveResponse{RedirectUri: w.redirectURI, Code: "code-1"}, nil
}

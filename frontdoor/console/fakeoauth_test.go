package console

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// fakeOAuth is the workers' OAuthService from memory: a client
// "https://app.example/cimd" with one redirect URI, an untrusted client
// "evil", and the grants of the tenant acme.
type fakeOAuth struct {
	taskwirev1.UnimplementedOAuthServiceServer

	mu       sync.Mutex
	approved []*taskwirev1.ApproveRequest
	tenants  []*taskwirev1.ConsentTenant
	grants   []*taskwirev1.Grant
}

const fakeClient = "https://app.example/cimd"

func newFakeOAuth() *fakeOAuth {
	return &fakeOAuth{
		tenants: []*taskwirev1.ConsentTenant{{Tenant: "acme", TenantName: "Acme & Co", AssistantRole: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER, AssistantHandle: "ada-app"}},
		grants: []*taskwirev1.Grant{
			{Id: 41, Tenant: "acme", ClientId: fakeClient, ClientName: "App <b>", ClientKind: "metadata", AssistantHandle: "ada-app",
				PersonHandle: "ada", Scopes: []string{"read", "comment"}, CreateTime: timestamppb.Now(), ExpireTime: timestamppb.Now(), RedirectHost: "app.example"},
			{Id: 42, Tenant: "other", ClientName: "Elsewhere", AssistantHandle: "ada-else", PersonHandle: "ada"},
		},
	}
}

// check is the fake's CheckAuthorization rule.
func (f *fakeOAuth) check(req *taskwirev1.AuthorizationRequest) *taskwirev1.CheckAuthorizationResponse {
	switch {
	case req.GetClientId() != fakeClient:
		return &taskwirev1.CheckAuthorizationResponse{Error: &taskwirev1.OAuthError{Code: "invalid_client", Description: "The client is not known."}}
	case req.GetRedirectUri() != "" && req.GetRedirectUri() != "https://app.example/cb?x=1":
		return &taskwirev1.CheckAuthorizationResponse{Error: &taskwirev1.OAuthError{Code: "invalid_request", Description: "The redirect URI is not the client's."}}
	case req.GetCodeChallenge() == "":
		return &taskwirev1.CheckAuthorizationResponse{Error: &taskwirev1.OAuthError{Code: "invalid_request", Description: "Send a PKCE code_challenge."},
			Redirect: true, RedirectUri: "https://app.example/cb?x=1"}
	}
	return &taskwirev1.CheckAuthorizationResponse{RedirectUri: "https://app.example/cb?x=1", Consent: &taskwirev1.Consent{
		ClientId: fakeClient, ClientName: "App <b>", LogoUri: "https://cdn.app.example/logo.png", RedirectHost: "app.example",
		ClientKind: "metadata", Scopes: []string{"read", "comment"}, Tenants: f.tenants}}
}

func (f *fakeOAuth) CheckAuthorization(_ context.Context, req *taskwirev1.CheckAuthorizationRequest) (*taskwirev1.CheckAuthorizationResponse, error) {
	if req.GetCookie() == "" {
		return nil, status.Error(codes.Unauthenticated, "Sign in.")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.check(req.GetRequest()), nil
}

func (f *fakeOAuth) Approve(_ context.Context, req *taskwirev1.ApproveRequest) (*taskwirev1.ApproveResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.approved = append(f.approved, req)
	c := f.check(req.GetRequest())
	if c.GetError() != nil {
		return &taskwirev1.ApproveResponse{Error: c.GetError(), Redirect: c.GetRedirect(), RedirectUri: c.GetRedirectUri()}, nil
	}
	return &taskwirev1.ApproveResponse{RedirectUri: c.GetRedirectUri(), Code: "code-1"}, nil
}

func (f *fakeOAuth) ListGrants(_ context.Context, req *taskwirev1.ListGrantsRequest) (*taskwirev1.ListGrantsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// As the worker: only the grants of the tenant asked for.
	var out []*taskwirev1.Grant
	for _, g := range f.grants {
		if req.GetTenant() == "" || g.GetTenant() == req.GetTenant() {
			out = append(out, g)
		}
	}
	return &taskwirev1.ListGrantsResponse{Grants: out}, nil
}

func (f *fakeOAuth) RevokeGrant(_ context.Context, req *taskwirev1.RevokeGrantRequest) (*taskwirev1.RevokeGrantResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.grants {
		if g.GetId() == req.GetId() && g.GetTenant() == "acme" {
			g.RevokeTime = timestamppb.Now()
			return &taskwirev1.RevokeGrantResponse{Grant: g}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "There is no grant "+req.String()+".")
}

package oauth

import (
	"context"
	"regexp"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// authRequest is an authorization request as checked: from a known
// client, to one of its redirect URIs, with PKCE, for this server.
type authRequest struct {
	client      *oauthClient
	redirectURI string // "" until the client and redirect URI are trusted
	scopes      []string
	challenge   string
	resource    string
}

// challengeRE is an S256 code challenge: base64url of 32 bytes.
var challengeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// CheckAuthorization implements taskwirev1.OAuthServiceServer.
func (s *Service) CheckAuthorization(ctx context.Context, req *taskwirev1.CheckAuthorizationRequest) (*taskwirev1.CheckAuthorizationResponse, error) {
	ar, err := s.checkRequest(ctx, req.GetRequest())
	if r := asRefusal(err); r != nil {
		return &taskwirev1.CheckAuthorizationResponse{Error: r, Redirect: ar.redirectURI != "", RedirectUri: ar.redirectURI}, nil
	}
	if err != nil {
		return done[*taskwirev1.CheckAuthorizationResponse](ctx, nil, err)
	}
	consent, err := s.consent(ctx, req.GetCookie(), ar)
	if err != nil {
		return done[*taskwirev1.CheckAuthorizationResponse](ctx, nil, err)
	}
	return &taskwirev1.CheckAuthorizationResponse{RedirectUri: ar.redirectURI, Consent: consent}, nil
}

// checkRequest checks an authorization request. Until the client and
// redirect URI are trusted, the request's redirectURI is "": the front
// door then shows the refusal and never redirects.
func (s *Service) checkRequest(ctx context.Context, r *taskwirev1.AuthorizationRequest) (*authRequest, error) {
	ar := &authRequest{}
	c, err := s.lookupClient(ctx, r.GetClientId())
	if err != nil {
		return ar, err
	}
	redirect, err := matchRedirect(c, r.GetRedirectUri())
	if err != nil {
		return ar, err
	}
	ar.client, ar.redirectURI = c, redirect
	if r.GetResponseType() != "code" {
		return ar, refuse(errUnsupportedResponseType, "The response_type %q is not supported: use code (with PKCE).", printable(r.GetResponseType()))
	}
	if err := checkChallenge(r.GetCodeChallenge(), r.GetCodeChallengeMethod()); err != nil {
		return ar, err
	}
	if err := s.checkResource(r.GetResource()); err != nil {
		return ar, err
	}
	if ar.scopes, err = parseScope(r.GetScope()); err != nil {
		return ar, err
	}
	ar.challenge, ar.resource = r.GetCodeChallenge(), s.issuer.Audience()
	return ar, nil
}

// checkChallenge refuses an authorization request without PKCE, or with
// any method but S256 (OAuth 2.1: plain lets an eavesdropper on the
// authorization request redeem the code).
func checkChallenge(challenge, method string) error {
	switch {
	case challenge == "":
		return refuse(errInvalidRequest, "The request has no code_challenge, and this server requires PKCE: send code_challenge and code_challenge_method S256.")
	case method != "S256":
		return refuse(errInvalidRequest, "The code_challenge_method %q is not supported: use S256 (plain is refused).", printable(method))
	case !challengeRE.MatchString(challenge):
		return refuse(errInvalidRequest, "The code_challenge is not an S256 challenge (43 characters of base64url): send BASE64URL(SHA256(code_verifier)).")
	}
	return nil
}

// checkResource refuses a resource (RFC 8707) other than this server's
// MCP endpoint, the audience of every token it issues; a trailing slash
// is tolerated.
func (s *Service) checkResource(resource string) error {
	want := s.issuer.Audience()
	switch {
	case resource == "":
		return refuse(errInvalidTarget, "The request names no resource: send resource=%s, this server's MCP endpoint.", want)
	case strings.TrimSuffix(resource, "/") != strings.TrimSuffix(want, "/"):
		return refuse(errInvalidTarget, "The resource %q is not this server's: tokens here are for %s only.", printable(resource), want)
	}
	return nil
}

// consent is what the person of cookie is asked to approve for ar.
func (s *Service) consent(ctx context.Context, cookie string, ar *authRequest) (*taskwirev1.Consent, error) {
	sess, err := s.person(ctx, cookie)
	if err != nil {
		return nil, err
	}
	c := ar.client
	out := &taskwirev1.Consent{
		ClientId: c.id, ClientName: c.name, LogoUri: c.logoURI, ClientUri: c.clientURI,
		RedirectHost: redirectHost(ar.redirectURI), LocalOnly: localOnly(c.redirectURIs), ClientKind: c.kind,
		Scopes: ar.scopes,
	}
	for _, m := range sess.GetMemberships() {
		ct, err := s.consentTenant(ctx, sess.GetAccount().GetId(), m, c)
		if err != nil {
			return nil, err
		}
		out.Tenants = append(out.Tenants, ct)
	}
	return out, nil
}

// consentTenant is what approving for tenant m would give the client:
// the assistant's role and handle, and whether it was granted before.
func (s *Service) consentTenant(ctx context.Context, account int64, m *taskwirev1.Membership, c *oauthClient) (*taskwirev1.ConsentTenant, error) {
	role := assistantRole(roleName(m.GetRole()))
	ct := &taskwirev1.ConsentTenant{Tenant: m.GetTenant(), TenantName: m.GetTenantName(), AssistantRole: roleToProto(role)}
	prev, err := s.previousAssistant(ctx, int(account), m.GetTenant(), c.id)
	if err != nil {
		return nil, err
	}
	if prev.member != nil {
		ct.AssistantHandle, ct.GrantedBefore = prev.member.Handle, prev.live
		return ct, nil
	}
	ct.AssistantHandle, err = s.freeHandle(ctx, m.GetTenant(), assistantHandle(m.GetHandle(), c.name))
	return ct, err
}

// roleName is the role an enum value names ("owner" …).
func roleName(r taskwirev1.MemberRole) string {
	return strings.ToLower(strings.TrimPrefix(r.String(), "MEMBER_ROLE_"))
}

// roleToProto is the enum value named after r (MEMBER_ROLE_OWNER …).
func roleToProto(r string) taskwirev1.MemberRole {
	return taskwirev1.MemberRole(taskwirev1.MemberRole_value["MEMBER_ROLE_"+strings.ToUpper(r)])
}

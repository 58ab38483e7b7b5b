package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"regexp"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthcode"
)

// verifierRE is a PKCE code verifier (RFC 7636 §4.1).
var verifierRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// Token implements taskwirev1.OAuthServiceServer.
func (s *Service) Token(ctx context.Context, req *taskwirev1.TokenRequest) (*taskwirev1.TokenResponse, error) {
	resp, err := s.token(ctx, req)
	if r := asRefusal(err); r != nil {
		return &taskwirev1.TokenResponse{Error: r}, nil
	}
	return done(ctx, resp, err)
}

func (s *Service) token(ctx context.Context, req *taskwirev1.TokenRequest) (*taskwirev1.TokenResponse, error) {
	ctx = system(ctx)
	switch req.GetGrantType() {
	case "authorization_code", "refresh_token":
	case "":
		return nil, refuse(errInvalidRequest, "The request has no grant_type: send authorization_code or refresh_token.")
	default:
		return nil, refuse(errUnsupportedGrantType, "The grant_type %q is not supported: use authorization_code or refresh_token.", printable(req.GetGrantType()))
	}
	c, err := s.authenticate(ctx, req.GetClientId(), req.GetClientSecret())
	if err != nil {
		return nil, err
	}
	if req.GetGrantType() == "refresh_token" {
		return s.refresh(ctx, c, req)
	}
	return s.exchangeCode(ctx, c, req)
}

// exchangeCode is the authorization_code grant: a code, once, by the
// client it was issued to, with the redirect URI and PKCE verifier of
// its authorization request.
func (s *Service) exchangeCode(ctx context.Context, c *oauthClient, req *taskwirev1.TokenRequest) (*taskwirev1.TokenResponse, error) {
	if req.GetCode() == "" || req.GetCodeVerifier() == "" {
		return nil, refuse(errInvalidRequest, "The request needs code and code_verifier: send both.")
	}
	code, err := s.client.OAuthCode.Query().Where(oauthcode.Hash(hashOf(req.GetCode()))).WithGrant().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, refuse(errInvalidGrant, "This authorization code is not known: start the authorization again.")
	}
	if err != nil {
		return nil, err
	}
	if code.UsedAt != nil {
		return nil, s.codeReused(ctx, code)
	}
	if err := s.checkCode(code, c, req); err != nil {
		return nil, err
	}
	n, err := s.client.OAuthCode.Update().Where(oauthcode.ID(code.ID), oauthcode.UsedAtIsNil()).SetUsedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, s.codeReused(ctx, code)
	}
	return s.issue(ctx, c, code.Edges.Grant, code.Scopes)
}

// checkCode refuses code unless req may redeem it.
func (s *Service) checkCode(code *ent.OAuthCode, c *oauthClient, req *taskwirev1.TokenRequest) error {
	switch {
	case code.ClientID != c.id:
		return refuse(errInvalidGrant, "This authorization code was issued to another client: start the authorization again.")
	case !s.now().Before(code.ExpiresAt):
		return refuse(errInvalidGrant, "This authorization code expired (codes live %s): start the authorization again.", s.limits.CodeTTL)
	case req.GetRedirectUri() != code.RedirectURI:
		return refuse(errInvalidGrant, "The redirect_uri is not the one of the authorization request: send the same one.")
	case !verifierRE.MatchString(req.GetCodeVerifier()):
		return refuse(errInvalidRequest, "The code_verifier is not 43 to 128 characters of A-Z, a-z, 0-9 and -._~ (RFC 7636).")
	case !pkceMatches(req.GetCodeVerifier(), code.CodeChallenge):
		return refuse(errInvalidGrant, "The code_verifier does not match the code_challenge of the authorization request: send the verifier you made the challenge from.")
	case req.GetResource() != "" && strings.TrimSuffix(req.GetResource(), "/") != strings.TrimSuffix(code.Resource, "/"):
		return refuse(errInvalidTarget, "The resource %q is not the one of the authorization request (%s): send the same one.", printable(req.GetResource()), code.Resource)
	}
	return s.liveGrant(code.Edges.Grant)
}

// pkceMatches reports whether BASE64URL(SHA256(verifier)) is challenge.
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// codeReused answers a code presented again: it may have been stolen, so
// the grant it made is revoked with every token issued under it (RFC 6749
// §4.1.2).
func (s *Service) codeReused(ctx context.Context, code *ent.OAuthCode) error {
	s.log.WarnContext(ctx, "security: an authorization code was used twice; its grant is revoked", "grant", code.GrantID, "client_id", code.ClientID)
	if err := s.revokeGrant(ctx, code.Edges.Grant, "an authorization code was used twice", nil); err != nil {
		return err
	}
	return refuse(errInvalidGrant, "This authorization code was used already; as it may have been stolen, the authorization it gave is revoked: start the authorization again.")
}

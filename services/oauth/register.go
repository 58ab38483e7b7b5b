package oauth

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
)

// The bounds of dynamic registration: how many registrations one address
// may make in registrationWindow, counted in the database so every
// replica counts them all, and how long a registration no grant used
// lives.
const (
	maxRegistrations   = 20
	registrationWindow = time.Hour
	unusedRegistration = 24 * time.Hour
)

// RegisterClient implements taskwirev1.OAuthServiceServer.
func (s *Service) RegisterClient(ctx context.Context, req *taskwirev1.RegisterClientRequest) (*taskwirev1.RegisterClientResponse, error) {
	resp, err := s.register(ctx, req)
	if r := asRefusal(err); r != nil {
		return &taskwirev1.RegisterClientResponse{Error: r}, nil
	}
	return done(ctx, resp, err)
}

func (s *Service) register(ctx context.Context, req *taskwirev1.RegisterClientRequest) (*taskwirev1.RegisterClientResponse, error) {
	if s.clients.OnlyConfigured {
		return nil, refuse(errAccessDenied, "This server accepts only the clients its operator configured: ask the operator to add yours.")
	}
	var md clientMetadata
	if err := json.Unmarshal([]byte(req.GetMetadataJson()), &md); err != nil {
		return nil, refuse(errInvalidClientMetadata, "The client metadata is not a JSON object of RFC 7591 fields: %s.", printable(err.Error()))
	}
	if err := md.checkRegistration(); err != nil {
		return nil, err
	}
	ctx = system(ctx)
	s.sweep(ctx)
	if err := s.checkRegistrationRate(ctx, req.GetClientAddr()); err != nil {
		return nil, err
	}
	md.ClientID = "twc_" + randomToken(16)
	now := s.now()
	create := s.client.OAuthClient.Create().SetClientID(md.ClientID).SetKind(oauthclient.KindRegistered).
		SetName(md.ClientName).SetLogoURI(md.LogoURI).SetClientURI(md.ClientURI).SetRedirectUris(md.RedirectURIs).
		SetApplicationType(md.ApplicationType).SetTokenEndpointAuthMethod(md.TokenEndpointAuthMethod).
		SetRegisteredFrom(req.GetClientAddr()).SetCreatedAt(now).SetExpiresAt(now.Add(unusedRegistration))
	var secret string
	if md.TokenEndpointAuthMethod != authNone {
		secret = "tws_" + randomToken(32)
		create.SetSecretHash(hashOf(secret))
	}
	if err := create.Exec(ctx); err != nil {
		return nil, err
	}
	s.log.InfoContext(ctx, "oauth: a client registered", "client_id", md.ClientID, "client_name", md.ClientName, "from", req.GetClientAddr())
	return &taskwirev1.RegisterClientResponse{ClientJson: registrationJSON(md, secret, now)}, nil
}

// checkRegistration refuses metadata RFC 7591 or this server does not
// accept, as invalid_client_metadata (invalid_redirect_uri for a redirect
// URI), and fills in the defaults.
func (md *clientMetadata) checkRegistration() error {
	if md.ClientID != "" {
		return refuse(errInvalidClientMetadata, "A registration may not choose its client_id: leave it out (or use the URL of a Client ID Metadata Document as client_id, without registering).")
	}
	switch md.TokenEndpointAuthMethod {
	case "":
		md.TokenEndpointAuthMethod = authSecretBase // RFC 7591 §2
	case authNone, authSecretPost, authSecretBase:
	default:
		return refuse(errInvalidClientMetadata, "token_endpoint_auth_method %q is not supported: use none, client_secret_post or client_secret_basic.", printable(md.TokenEndpointAuthMethod))
	}
	if err := md.check(); err != nil {
		code := errInvalidClientMetadata
		for _, u := range md.RedirectURIs {
			if checkRedirectURI(u, md.ApplicationType) != nil {
				code = errInvalidRedirectURI
			}
		}
		return refuse(code, "The client metadata cannot be registered: %s.", err)
	}
	// Every client gets refresh tokens, so the registration says so even
	// when the client named no grant types (RFC 7591 §3.2.1 lets the
	// server answer other values than those asked).
	if !slices.Contains(md.GrantTypes, "refresh_token") {
		md.GrantTypes = append(md.GrantTypes, "refresh_token")
	}
	if !slices.Contains(md.GrantTypes, "authorization_code") {
		md.GrantTypes = append([]string{"authorization_code"}, md.GrantTypes...)
	}
	if len(md.ResponseTypes) == 0 {
		md.ResponseTypes = []string{"code"}
	}
	return nil
}

// checkRegistrationRate refuses a registration from addr when it made
// maxRegistrations in the last registrationWindow.
func (s *Service) checkRegistrationRate(ctx context.Context, addr string) error {
	n, err := s.client.OAuthClient.Query().Where(oauthclient.KindEQ(oauthclient.KindRegistered),
		oauthclient.RegisteredFrom(addr), oauthclient.CreatedAtGT(s.now().Add(-registrationWindow))).Count(ctx)
	if err != nil {
		return err
	}
	if n >= maxRegistrations {
		s.log.WarnContext(ctx, "security: client registrations over the limit were refused", "from", addr)
		return refuse(errTemporarilyUnavailable, "This address registered %d clients within the last hour, the most it may: reuse a registration, or try again in an hour.", n)
	}
	return nil
}

// registrationJSON is the RFC 7591 §3.2.1 response: the metadata as
// registered, the client_id and, for a confidential client, its secret,
// shown this once.
func registrationJSON(md clientMetadata, secret string, now time.Time) string {
	out := struct {
		clientMetadata
		IssuedAt     int64  `json:"client_id_issued_at"`
		Secret       string `json:"client_secret,omitempty"`
		SecretExpiry *int64 `json:"client_secret_expires_at,omitempty"`
	}{clientMetadata: md, IssuedAt: now.Unix(), Secret: secret}
	if secret != "" {
		never := int64(0)
		out.SecretExpiry = &never
	}
	b, _ := json.Marshal(out)
	return string(b)
}

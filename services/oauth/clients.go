package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/oauthclient"
)

// The kinds of client, as Consent.client_kind and oauth_clients.kind name
// them.
const (
	kindRegistered = "registered"
	kindMetadata   = "metadata"
	kindConfigured = "configured"
)

// The token endpoint authentication methods a client may register.
const (
	authNone       = "none"
	authSecretPost = "client_secret_post"
	authSecretBase = "client_secret_basic"
)

// oauthClient is a client as the service knows it, whichever way.
type oauthClient struct {
	id           string
	kind         string
	name         string
	logoURI      string
	clientURI    string
	redirectURIs []string
	authMethod   string
	secretHash   []byte // nil: a public client
}

// Validate refuses a configuration whose clients could not work: no
// client_id, a client_id twice, no redirect URIs or bad ones, a secret
// hash that is not a hex SHA-256.
func (c Clients) Validate() error {
	seen := map[string]bool{}
	for _, cc := range c.Configured {
		switch {
		case cc.ClientID == "":
			return errors.New("oauth: a configured client has no client_id")
		case seen[cc.ClientID]:
			return fmt.Errorf("oauth: client %q is configured twice", cc.ClientID)
		case len(cc.RedirectURIs) == 0:
			return fmt.Errorf("oauth: configured client %q has no redirect_uris", cc.ClientID)
		}
		if cc.SecretSHA256 != "" {
			if b, err := hex.DecodeString(cc.SecretSHA256); err != nil || len(b) != sha256.Size {
				return fmt.Errorf("oauth: client_secret_sha256 of client %q is not a hex SHA-256", cc.ClientID)
			}
		}
		for _, u := range cc.RedirectURIs {
			if err := checkRedirectURI(u, appNative); err != nil {
				return fmt.Errorf("oauth: configured client %q: %w", cc.ClientID, err)
			}
		}
		seen[cc.ClientID] = true
	}
	return nil
}

// configuredClients indexes the operator's clients by client_id. They
// need no row: the configuration is their record on every replica.
func configuredClients(ccs []ConfiguredClient) map[string]*oauthClient {
	out := make(map[string]*oauthClient, len(ccs))
	for _, cc := range ccs {
		c := &oauthClient{
			id: cc.ClientID, kind: kindConfigured, name: cc.Name, logoURI: httpsOnly(cc.LogoURI),
			redirectURIs: cc.RedirectURIs, authMethod: authNone,
		}
		if cc.SecretSHA256 != "" {
			c.secretHash, _ = hex.DecodeString(cc.SecretSHA256)
			c.authMethod = authSecretBase
		}
		if c.name == "" {
			c.name = cc.ClientID
		}
		out[cc.ClientID] = c
	}
	return out
}

// lookupClient returns the client with id, fetching its metadata document
// when id is one's URL and the cached copy is stale. An unknown client is
// an invalid_client refusal.
func (s *Service) lookupClient(ctx context.Context, id string) (*oauthClient, error) {
	if c, ok := s.configured[id]; ok {
		return c, nil
	}
	switch {
	case id == "":
		return nil, refuse(errInvalidRequest, "The request names no client_id: send the client's id.")
	case s.clients.OnlyConfigured:
		return nil, refuse(errInvalidClient, "This server accepts only the clients its operator configured, and %q is not one: ask the operator to add it.", printable(id))
	case isMetadataURL(id):
		return s.metadataClient(ctx, id)
	}
	row, err := s.client.OAuthClient.Query().
		Where(oauthclient.ClientID(id), oauthclient.KindEQ(oauthclient.KindRegistered)).Only(system(ctx))
	if ent.IsNotFound(err) || (err == nil && row.ExpiresAt != nil && !s.now().Before(*row.ExpiresAt)) {
		return nil, refuse(errInvalidClient, "No client %q is registered here (unused registrations end after a day): register the client again.", printable(id))
	}
	if err != nil {
		return nil, err
	}
	return clientOfRow(row), nil
}

// clientOfRow is the client a row records.
func clientOfRow(row *ent.OAuthClient) *oauthClient {
	return &oauthClient{
		id: row.ClientID, kind: string(row.Kind), name: row.Name, logoURI: row.LogoURI, clientURI: row.ClientURI,
		redirectURIs: row.RedirectUris, authMethod: row.TokenEndpointAuthMethod, secretHash: row.SecretHash,
	}
}

// authenticate refuses a token or revocation request unless the client
// proves who it is as it registered: a public client by its id alone, a
// confidential one by its secret (compared in constant time, by either
// secret method: which one it registered does not make the secret
// weaker).
func (s *Service) authenticate(ctx context.Context, id, secret string) (*oauthClient, error) {
	if id == "" {
		return nil, refuse(errInvalidClient, "The request names no client: send client_id, or authenticate with HTTP Basic.")
	}
	c, err := s.lookupClient(ctx, id)
	var r *refusal
	if errors.As(err, &r) {
		return nil, refuse(errInvalidClient, "%s", r.description)
	}
	if err != nil {
		return nil, err
	}
	if c.secretHash == nil {
		return c, nil
	}
	sum := sha256.Sum256([]byte(secret))
	if secret == "" || subtle.ConstantTimeCompare(sum[:], c.secretHash) != 1 {
		return nil, refuse(errInvalidClient, "The client secret is missing or wrong: send the secret handed out when the client was registered.")
	}
	return c, nil
}

// printable is s shortened and with control characters dropped, for a
// sentence quoting what a client sent.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

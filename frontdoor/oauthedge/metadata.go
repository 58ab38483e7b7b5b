package oauthedge

import (
	"encoding/json"
	"net/http"
)

// metadata is the RFC 8414 authorization server metadata, with the
// fields MCP clients look for (client ID metadata documents, RFC 9207).
type metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypes                     []string `json:"response_types_supported"`
	ResponseModes                     []string `json:"response_modes_supported"`
	GrantTypes                        []string `json:"grant_types_supported"`
	CodeChallengeMethods              []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethods          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	Scopes                            []string `json:"scopes_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	ServiceDocumentation              string   `json:"service_documentation"`
}

// Scopes are the scopes a client may ask for, weakest first; each implies
// those before it. offline_access is not among them: every grant gets a
// refresh token.
var Scopes = []string{"read", "comment", "write"}

// clientAuthMethods are how a client may authenticate at the token and
// revocation endpoints: public clients (PKCE) send none.
var clientAuthMethods = []string{"none", "client_secret_post", "client_secret_basic"}

// encodeMetadata encodes the discovery document once.
func (e *Edge) encodeMetadata() ([]byte, error) {
	doc := e.cfg.Documentation
	if doc == "" {
		doc = DefaultDocumentation
	}
	return json.Marshal(metadata{
		Issuer:                            e.issuer,
		AuthorizationEndpoint:             e.issuer + AuthorizePath,
		TokenEndpoint:                     e.issuer + TokenPath,
		RegistrationEndpoint:              e.issuer + RegistrationPath,
		RevocationEndpoint:                e.issuer + RevocationPath,
		ResponseTypes:                     []string{"code"},
		ResponseModes:                     []string{"query"},
		GrantTypes:                        []string{"authorization_code", "refresh_token"},
		CodeChallengeMethods:              []string{"S256"},
		TokenEndpointAuthMethods:          clientAuthMethods,
		RevocationEndpointAuthMethods:     clientAuthMethods,
		Scopes:                            Scopes,
		ClientIDMetadataDocumentSupported: true,
		IssParameterSupported:             true,
		ServiceDocumentation:              doc,
	})
}

// serveMetadata answers with the discovery document. It changes only
// with the configuration, so clients and proxies may keep it a while.
func (e *Edge) serveMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(e.metadata)
}

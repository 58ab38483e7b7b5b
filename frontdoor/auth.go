package frontdoor

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/taskwire/taskwire/frontdoor/cors"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// wellKnownPrefix starts the RFC 9728 protected-resource metadata paths.
const wellKnownPrefix = "/.well-known/oauth-protected-resource"

// resourceMetadata is the RFC 9728 document that tells a client which
// authorization server issues tokens for this endpoint (MCP authorization).
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

// initMetadata encodes the metadata document once and records where it is
// served: under the endpoint's path, as RFC 9728 §3.1 builds the URL, and at
// the root, which some clients try first.
func (h *Handler) initMetadata(endpoint *url.URL) error {
	origin := endpoint.Scheme + "://" + endpoint.Host
	issuer := h.cfg.Issuer
	if issuer == "" {
		issuer = origin
	}
	doc, err := json.Marshal(resourceMetadata{
		Resource:               h.cfg.Endpoint,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        authz.AllScopes,
		BearerMethodsSupported: []string{"header"},
	})
	if err != nil {
		return err
	}
	h.metadata = doc
	specific := wellKnownPrefix + strings.TrimSuffix(endpoint.Path, "/")
	h.metaPaths = []string{specific, wellKnownPrefix}
	h.metadataURL = origin + specific
	return nil
}

func (h *Handler) isMetadataPath(p string) bool {
	for _, mp := range h.metaPaths {
		if p == mp {
			return true
		}
	}
	return false
}

// serveMetadata answers GET with the protected-resource document. It needs
// no token: a client reads it to learn how to get one.
// Browser-based clients read it from their own origin.
func (h *Handler) serveMetadata(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		cors.Public(w)
	case http.MethodOptions:
		cors.Preflight(w, "GET, HEAD, OPTIONS")
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.metadata)
}

// authenticate returns the caller of r's bearer token, or the refusal that
// tells the client how to get a valid one (RFC 6750 §3, MCP authorization).
// The token itself never reaches a log or a response.
func (h *Handler) authenticate(r *http.Request) (identity.Caller, *failure) {
	if r.URL.Query().Has("access_token") {
		return identity.Caller{}, h.badTokenRequest("access tokens are accepted in the Authorization header only, never in the URL")
	}
	values := r.Header.Values("Authorization")
	if len(values) == 0 && h.cfg.Anonymous != nil {
		return *h.cfg.Anonymous, nil
	}
	if len(values) > 1 {
		return identity.Caller{}, h.badTokenRequest("send one Authorization header")
	}
	scheme, raw, _ := strings.Cut(strings.TrimSpace(strings.Join(values, "")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return identity.Caller{}, h.unauthorized("a bearer token is required", "", nil)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return identity.Caller{}, h.unauthorized("the bearer token is empty", "the bearer token is empty", nil)
	}
	c, err := h.cfg.Verifier.Verify(r.Context(), raw)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return identity.Caller{}, h.unauthorized(refusedBecause(err), refusedBecause(err), err)
	}
	return c, nil
}

// refusedBecause says why a token was refused: the verifier's sentence
// (expired and when, revoked, issued for another server URL, an admin
// token, …), written to be shown, or a neutral one for any other error.
func refusedBecause(err error) string {
	if errors.Is(err, authn.ErrInvalidToken) {
		return err.Error()
	}
	return "the token is not valid"
}

// challengeScope is the scope every 401 names (MCP authorization's scope
// selection): what a client without a token should ask for, capped by
// the person's role at consent. Never offline_access: every grant gets a
// refresh token.
var challengeScope = strings.Join(authz.AllScopes, " ")

// unauthorized is a 401 whose challenge points at the metadata document
// and names the scope to ask for; description, when set, adds
// error="invalid_token" because a token was given but refused.
func (h *Handler) unauthorized(msg, description string, cause error) *failure {
	ch := `Bearer resource_metadata="` + h.metadataURL + `", scope="` + challengeScope + `"`
	if description != "" {
		ch += `, error="invalid_token", error_description=` + quote(description)
	}
	f := refusal(http.StatusUnauthorized, "unauthorized: "+msg, http.Header{"Www-Authenticate": {ch}})
	f.cause = cause
	return f
}

// badTokenRequest is RFC 6750's invalid_request: the token was offered in
// a way this server refuses, so no retry with the same request can work.
func (h *Handler) badTokenRequest(msg string) *failure {
	ch := `Bearer resource_metadata="` + h.metadataURL + `", error="invalid_request", error_description=` + quote(msg)
	return refusal(http.StatusBadRequest, "invalid request: "+msg, http.Header{"Www-Authenticate": {ch}})
}

// insufficientScope is the 403 of a token that lacks a tool's scope; the
// challenge names every scope the call needs (the scope and those it
// implies), so that a client asking for exactly these (MCP's step-up)
// gets a token that works.
func (h *Handler) insufficientScope(id json.RawMessage, e *mcp.ScopeError) *failure {
	ch := `Bearer error="insufficient_scope", scope=` + quote(strings.Join(authz.Needed(e.Scope), " ")) + `, resource_metadata="` + h.metadataURL + `"`
	f := refusal(http.StatusForbidden, "forbidden: "+e.Error(), http.Header{"Www-Authenticate": {ch}})
	f.id = id
	return f
}

// toolsetForbids is the 403 of a token whose toolsets do not hold the
// tool: refused like a missing scope (a client may ask for another
// token), with no scope to name, since every scope would still be refused.
func (h *Handler) toolsetForbids(id json.RawMessage, e *mcp.ToolsetError) *failure {
	ch := `Bearer error="insufficient_scope", error_description=` + quote(e.Message) + `, resource_metadata="` + h.metadataURL + `"`
	f := refusal(http.StatusForbidden, "forbidden: "+e.Error(), http.Header{"Www-Authenticate": {ch}})
	f.id = id
	return f
}

// quote makes s an RFC 9110 quoted-string, dropping what a challenge
// parameter may not hold (RFC 6750 allows no '"' or backslash in these values).
func quote(s string) string {
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s) + `"`
}

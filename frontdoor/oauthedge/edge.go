// Package oauthedge is the front door's side of Taskwire's OAuth 2.1
// authorization server for MCP clients: the discovery document (RFC
// 8414), the token endpoint, dynamic client registration (RFC 7591) and
// revocation (RFC 7009). It holds no state and no database: every
// request becomes one call of the workers' OAuthService, so a flow begun
// at one front door completes at another. The authorization endpoint,
// which needs a signed-in person, is the console's (/oauth/authorize).
package oauthedge

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/cors"
)

// The paths of the endpoints, after the public URL's path.
const (
	MetadataPath     = "/.well-known/oauth-authorization-server"
	AuthorizePath    = "/oauth/authorize" // the console's
	TokenPath        = "/oauth/token"
	RegistrationPath = "/oauth/register"
	RevocationPath   = "/oauth/revoke"
)

// Config is what an Edge is built from.
type Config struct {
	// Conn reaches the workers, which serve OAuthService.
	Conn grpc.ClientConnInterface
	// PublicURL is the deployment's URL; without its trailing slash it is
	// the issuer, and the endpoints are under it.
	PublicURL string
	// Throttle derives the client address of a request (behind trusted
	// proxies) and slows down clients that keep failing to authenticate
	// at the token endpoint; nil: the TCP peer, and no throttle.
	Throttle *frontdoor.AuthThrottle
	// Limits bound the token and registration requests per client
	// address; nil: DefaultLimits.
	Limits *Limits
	// Documentation is the service_documentation of the discovery
	// document; empty: DefaultDocumentation.
	Documentation string
	Logger        *slog.Logger // required
}

// DefaultDocumentation tells a client's developer how to connect.
const DefaultDocumentation = "https://github.com/taskwire/taskwire/blob/main/docs/oauth.md"

// Limits are the per-address rate limits of the endpoints a client may
// call without a token; a zero RateLimit is no limit.
type Limits struct {
	// Token bounds token and revocation requests: a client refreshes
	// once an hour, so a burst covers any honest use.
	Token frontdoor.RateLimit
	// Register bounds registrations, which add rows to the database: a
	// client registers once per installation.
	Register frontdoor.RateLimit
	// Replicas is how many front doors share the limits (each enforces
	// 1/Replicas of them). Default 1.
	Replicas int
}

// DefaultLimits are the limits of a Config without Limits.
var DefaultLimits = Limits{
	Token:    frontdoor.RateLimit{PerSecond: 1, Burst: 30},
	Register: frontdoor.RateLimit{PerSecond: 0.1, Burst: 10},
}

// Validate reports the first problem of cfg that New refuses.
func (cfg Config) Validate() error {
	switch {
	case cfg.Conn == nil:
		return errors.New("oauthedge: Config.Conn is required")
	case cfg.Logger == nil:
		return errors.New("oauthedge: Config.Logger is required")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("oauthedge: Config.PublicURL %q is not an absolute http(s) URL without query or fragment", cfg.PublicURL)
	}
	return nil
}

// Edge serves the authorization server's endpoints but the console's.
type Edge struct {
	cfg      Config
	log      *slog.Logger
	oauth    taskwirev1.OAuthServiceClient
	issuer   string
	base     string // the public URL's path, without trailing slash
	metadata []byte
	token    *frontdoor.RateLimiter
	register *frontdoor.RateLimiter
}

// New returns the edge of cfg.
func New(cfg Config) (*Edge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.PublicURL)
	e := &Edge{
		cfg:    cfg,
		log:    cfg.Logger.With("component", "oauthedge"),
		oauth:  taskwirev1.NewOAuthServiceClient(cfg.Conn),
		issuer: strings.TrimSuffix(cfg.PublicURL, "/"),
		base:   strings.TrimSuffix(u.Path, "/"),
	}
	var err error
	if e.metadata, err = e.encodeMetadata(); err != nil {
		return nil, err
	}
	if err := e.newLimiters(); err != nil {
		return nil, err
	}
	return e, nil
}

// newLimiters makes the per-address limiters of the configuration.
func (e *Edge) newLimiters() error {
	l := DefaultLimits
	if e.cfg.Limits != nil {
		l = *e.cfg.Limits
	}
	var err error
	if l.Token.PerSecond > 0 {
		if e.token, err = frontdoor.NewRateLimiter(frontdoor.RateLimits{Token: l.Token, Replicas: l.Replicas}); err != nil {
			return err
		}
	}
	if l.Register.PerSecond > 0 {
		e.register, err = frontdoor.NewRateLimiter(frontdoor.RateLimits{Token: l.Register, Replicas: l.Replicas})
	}
	return err
}

// Issuer is the authorization server's issuer identifier: the public URL
// without its trailing slash.
func (e *Edge) Issuer() string { return e.issuer }

// Owns reports whether path is one of the edge's, so that the front
// door's router can send it here before the console and the MCP handler.
func (e *Edge) Owns(path string) bool {
	switch path {
	case MetadataPath, MetadataPath + e.base,
		e.base + TokenPath, e.base + RegistrationPath, e.base + RevocationPath:
		return true
	}
	return false
}

// ServeHTTP answers one request of a path the edge owns, and 404 for any
// other.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Browser-based clients (MCP Inspector) call every endpoint from
	// another origin; none relies on cookies, so any origin may.
	cors.Public(w)
	switch p := r.URL.Path; {
	case p == MetadataPath || p == MetadataPath+e.base:
		e.serve(w, r, http.MethodGet, e.serveMetadata)
	case p == e.base+TokenPath:
		e.serve(w, r, http.MethodPost, e.serveToken)
	case p == e.base+RegistrationPath:
		e.serve(w, r, http.MethodPost, e.serveRegister)
	case p == e.base+RevocationPath:
		e.serve(w, r, http.MethodPost, e.serveRevoke)
	default:
		http.NotFound(w, r)
	}
}

// serve answers a CORS preflight, refuses any method but method, and
// hands the rest to fn.
func (e *Edge) serve(w http.ResponseWriter, r *http.Request, method string, fn http.HandlerFunc) {
	allow := method + ", OPTIONS"
	if method == http.MethodGet {
		allow = "GET, HEAD, OPTIONS"
	}
	switch {
	case r.Method == http.MethodOptions:
		cors.Preflight(w, allow)
	case r.Method == method || (method == http.MethodGet && r.Method == http.MethodHead):
		fn(w, r)
	default:
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "Send "+method+" to "+r.URL.Path+".")
	}
}

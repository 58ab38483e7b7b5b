// Package frontdoor serves MCP 2026-07-28 over Streamable HTTP: it checks
// every request in the order the transport rules set (Origin, token,
// framing, headers against body, _meta, version, method), answers
// server/discover and tools/list itself and hands tools/call to a
// ToolBackend. Clients of 2025-06-18 and 2025-11-25 are served beside it,
// the era chosen per request (era.go, legacy.go). Any replica can answer
// any request: a legacy session's id is sealed (session.go) rather than
// kept, and what a replica learns of a session later (ended, a logging
// level) it shares with the others (session_news.go). What a replica
// does keep is its own share of the rate limits (ratelimit.go).
package frontdoor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/taskwire/taskwire/frontdoor/mailbox"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/internal/telemetry/mcpobserve"
)

// TokenVerifier turns the bearer token of a request into its caller. It
// must check signature, expiry, audience (the Endpoint) and revocation; an
// error means the token is not acceptable.
type TokenVerifier interface {
	Verify(ctx context.Context, raw string) (identity.Caller, error)
}

// ToolBackend lists and runs the tools of one caller.
type ToolBackend interface {
	// Tools returns the tools c may call now (its role narrowed by its
	// token's scopes and toolsets), in a stable order. Its errors follow
	// CallTool's.
	Tools(ctx context.Context, c identity.Caller) ([]mcp.Tool, error)
	// Check has the workers check c now (its token against its record,
	// its membership), as Tools does, without listing anything: a listen
	// stream asks it once, before it hears its tenant's changes. Its
	// errors follow CallTool's.
	Check(ctx context.Context, c identity.Caller) error
	// CallTool runs call for c.
	// report is nil when the request carried no progressToken; otherwise
	// it may be called from any goroutine, even briefly after CallTool
	// returned: the handler drops such late reports.
	//
	// Errors: a *jsonrpc.Error is sent as is (e.g. -32602 for an unknown
	// tool or arguments that do not fit the schema); a *mcp.ScopeError
	// or *mcp.ToolsetError becomes HTTP 403; after the client left nothing is sent; anything
	// else becomes -32603 with a neutral message and a short ref, and is
	// logged in full.
	CallTool(ctx context.Context, c identity.Caller, call *mcp.ToolCall, report progress.Reporter) (*mcp.CallToolResult, error)
	// ParamHeaders returns the x-mcp-header annotations of the inputSchema
	// of the tool called name, whoever asks; nil for a tool that has none
	// or is not known. It asks no worker: the front door compares them
	// with the Mcp-Param headers of every call before CallTool runs it.
	ParamHeaders(name string) []mcp.ParamHeader
}

// Config configures a Handler. Zero values mean the defaults noted.
type Config struct {
	// Endpoint is the public URL of the MCP endpoint, e.g.
	// "http://127.0.0.1:8080/api/mcp". Its path is where the handler
	// serves MCP, its origin is always allowed, and it is the resource
	// (token audience) named in the protected-resource metadata. Required.
	Endpoint string
	// Issuer is the authorization server the protected-resource metadata
	// names: the deployment's public URL without trailing slash, path
	// included (RFC 8414 builds its discovery URL from it). Empty: the
	// endpoint's origin.
	Issuer string
	// AllowedOrigins are further Origin values browsers may send, e.g.
	// "https://inspector.example".
	AllowedOrigins []string
	// Verifier checks bearer tokens. Required.
	Verifier TokenVerifier
	// Tools lists and runs tools. Required.
	Tools ToolBackend
	// Resources, Prompts and Completions serve the optional features of
	// the same names. Nil means the feature is neither advertised nor
	// served: its methods get -32601.
	Resources   ResourceBackend
	Prompts     PromptBackend
	Completions CompletionBackend
	// Apps serves the views of MCP Apps (apps.go), which are listed and
	// read through the methods of Resources, so it needs Resources. Nil:
	// the extension is neither declared nor honoured.
	Apps AppBackend
	// ServerInfo is sent in the _meta of every result. Default name
	// "taskwire", version "(devel)".
	ServerInfo mcp.Implementation
	// Instructions, if set, go into the server/discover result.
	Instructions string
	// MaxBodyBytes caps a request body. Default 4 MiB.
	MaxBodyBytes int64
	// Logger receives one record per request. Required: a front door
	// that logs nothing hides its internal errors, which clients see only
	// as a ref into this log.
	Logger *slog.Logger
	// SessionKeys seal the Mcp-Session-Id of legacy (pre-2026) clients,
	// newest first: the first seals, all open, so a key can be rotated
	// in. Every replica behind one endpoint needs the same keys. Each has
	// sealed.KeySize bytes. Required.
	SessionKeys [][]byte
	// Mailbox reaches the replica running a call, so that an older
	// client's notifications/cancelled stops the call wherever it runs.
	// Nil means such cancellations are ignored (closing the call's stream
	// still cancels it).
	Mailbox *mailbox.Mailbox
	// SessionNews shares what a replica learns about legacy sessions (a
	// client ended one, or set its logging level) with the other
	// replicas; nil keeps it to this one.
	SessionNews SessionNews
	// Events tells of changes in a tenant, for subscriptions/listen
	// streams. Nil means no list-change notification is honoured.
	Events EventSource
	// Anonymous, when set, is the caller of requests that carry no
	// Authorization header: a board open to anyone who can reach it. It
	// exists for the protocol conformance suite, whose client sends no
	// token, and New accepts it only for an endpoint on a loopback
	// address, where the Host header is checked as well.
	Anonymous *identity.Caller
	// KeepAlive is how often an idle listen stream gets a comment line,
	// so proxies keep it open. Default 15 s.
	KeepAlive time.Duration
	// RateLimiter, when set, limits how fast each token and each tenant
	// may send requests (ratelimit.go); nil means no limits.
	RateLimiter *RateLimiter
	// AuthThrottle, when set, refuses requests from a client address
	// that sent too many without a valid token (auththrottle.go). The
	// admin API shares it, so failures on either count together.
	AuthThrottle *AuthThrottle
	// ListenLimits bounds the subscriptions/listen streams this front
	// door holds open per token and per tenant (streams.go); zero: none.
	ListenLimits StreamLimits
	// Observer, when set, sees every request for metrics and traces
	// (observe.go); nil means none.
	Observer mcpobserve.Observer

	// now is the clock of session ids; nil means time.Now. Tests set it.
	now func() time.Time
}

// DefaultMaxBodyBytes is the body limit when Config.MaxBodyBytes is zero,
// as in go-sdk.
const DefaultMaxBodyBytes = 4 << 20

// Validate reports the first problem of c that New would refuse.
func (c Config) Validate() error {
	if _, err := parseEndpoint(c.Endpoint); err != nil {
		return err
	}
	for _, o := range c.AllowedOrigins {
		if _, err := normalizeOrigin(o); err != nil {
			return fmt.Errorf("frontdoor: allowed origin %q: %w", o, err)
		}
	}
	switch {
	case c.Verifier == nil:
		return errors.New("frontdoor: Config.Verifier is required")
	case c.Tools == nil:
		return errors.New("frontdoor: Config.Tools is required")
	case c.Apps != nil && c.Resources == nil:
		return errors.New("frontdoor: Config.Apps needs Config.Resources: views are resources")
	case c.Logger == nil:
		return errors.New("frontdoor: Config.Logger is required (pass slog.New(slog.DiscardHandler) to log nothing)")
	case c.MaxBodyBytes < 0:
		return errors.New("frontdoor: Config.MaxBodyBytes is negative")
	}
	if err := c.ListenLimits.Validate(); err != nil {
		return err
	}
	if c.Anonymous != nil {
		if u, _ := parseEndpoint(c.Endpoint); !isLoopbackHost(u.Host) {
			return fmt.Errorf("frontdoor: Config.Anonymous needs an endpoint on a loopback address, not %s", u.Host)
		}
		if err := c.Anonymous.Validate(); err != nil {
			return fmt.Errorf("frontdoor: Config.Anonymous: %w", err)
		}
	}
	return validateSessionKeys(c.SessionKeys)
}

// validateSessionKeys refuses a missing, short or repeated key: a repeated
// key would hide a rotation that never happened.
func validateSessionKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return errors.New("frontdoor: Config.SessionKeys is required")
	}
	for i, k := range keys {
		if len(k) != sealed.KeySize {
			return fmt.Errorf("frontdoor: Config.SessionKeys[%d] has %d bytes, want %d", i, len(k), sealed.KeySize)
		}
		for _, prev := range keys[:i] {
			if bytes.Equal(prev, k) {
				return fmt.Errorf("frontdoor: Config.SessionKeys[%d] repeats an earlier key", i)
			}
		}
	}
	return nil
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.ServerInfo.Name == "" {
		c.ServerInfo.Name = "taskwire"
	}
	if c.ServerInfo.Version == "" {
		c.ServerInfo.Version = "(devel)"
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = 15 * time.Second
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Handler is the front door's http.Handler. It is safe for concurrent use.
// Between requests it holds only the news of legacy sessions, which every
// replica learns too, and the count of its own open listen streams.
type Handler struct {
	cfg         Config
	path        string          // the endpoint's path
	origins     map[string]bool // normalized allowed origins
	metaPaths   []string        // where the RFC 9728 document is served
	metadataURL string          // its public URL, for WWW-Authenticate
	metadata    []byte          // the document, encoded once
	loopback    bool            // the endpoint is on this machine only
	pageSize    int             // tools per tools/list page
	sessions    *sessions       // seals legacy session ids
	closing     chan struct{}   // closed by Shutdown: listen streams end
	sessionBook *sessionBook    // what legacy sessions' ids cannot say
	streams     *streamCounts   // open listen streams; nil: no limits
	stopNews    func()
	closeOnce   sync.Once
}

// New returns a Handler for cfg, or the reason cfg is unusable.
func New(cfg Config) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	u, _ := parseEndpoint(cfg.Endpoint)
	h := &Handler{cfg: cfg, path: u.Path, origins: map[string]bool{}, pageSize: 50, closing: make(chan struct{})}
	self, _ := normalizeOrigin(u.Scheme + "://" + u.Host)
	h.origins[self] = true
	if h.loopback = isLoopbackHost(u.Host); h.loopback {
		for _, o := range loopbackOrigins(u) {
			h.origins[o] = true
		}
	}
	for _, o := range cfg.AllowedOrigins {
		n, _ := normalizeOrigin(o)
		h.origins[n] = true
	}
	if err := h.initMetadata(u); err != nil {
		return nil, err
	}
	box, err := sealed.NewBox(cfg.SessionKeys...)
	if err != nil {
		return nil, err
	}
	h.sessions = &sessions{box: box, now: cfg.now}
	if cfg.ListenLimits != (StreamLimits{}) {
		h.streams = newStreamCounts(cfg.ListenLimits)
	}
	h.sessionBook = &sessionBook{entries: map[string]sessionEntry{}, now: cfg.now}
	if cfg.SessionNews != nil {
		stop, err := cfg.SessionNews.SubscribeSessionNews(h.sessionBook.learn)
		if err != nil {
			return nil, err
		}
		h.stopNews = stop
	}
	return h, nil
}

// ServeHTTP routes the MCP endpoint and the protected-resource metadata;
// anything else is not found.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == h.path:
		h.serveMCP(w, r)
	case h.isMetadataPath(p):
		h.serveMetadata(w, r)
	default:
		http.NotFound(w, r)
	}
}

// parseEndpoint checks that s is an absolute http(s) URL fit to be a token
// audience: no query, fragment or user info, which RFC 8707 resource
// identifiers exclude.
func parseEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return nil, errors.New("frontdoor: Config.Endpoint is required")
	case err != nil:
		return nil, fmt.Errorf("frontdoor: Config.Endpoint: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, fmt.Errorf("frontdoor: Config.Endpoint %q is not an absolute http(s) URL", s)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, fmt.Errorf("frontdoor: Config.Endpoint %q has a query, fragment or user info", s)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// normalizeOrigin returns s as scheme://host[:port] in lower case without
// a default port, so that "HTTP://Example.com:80" and "http://example.com"
// compare equal. Anything else, including "null", is an error.
func normalizeOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return "", errors.New("not an origin (scheme://host[:port])")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errors.New("an origin has no path, query, fragment or user info")
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return scheme + "://" + host, nil
}

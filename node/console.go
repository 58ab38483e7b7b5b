package node

import (
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/frontdoor/console"
	"github.com/taskwire/taskwire/frontdoor/oauthedge"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/events"
)

// The web console of a front door node.

// newConsole is the console of a front door, calling the workers through
// conn, with the sign-in attempts counted by the throttle the MCP
// endpoint and the admin API share (a guesser gains nothing by changing
// door).
func newConsole(cfg FrontdoorConfig, conn grpc.ClientConnInterface, throttle *frontdoor.AuthThrottle) (*console.Console, error) {
	cc := console.Config{
		Conn:      conn,
		PublicURL: cfg.PublicURL,
		// CSRF tokens are signed with a key every front door of the
		// deployment derives alike (HKDF-SHA256 over the root key,
		// info "taskwire console-csrf v1"), so a form rendered by one
		// replica may be posted to any other.
		CSRFKeys: cfg.derive("console-csrf v1"),
		Throttle: throttle,
		// The Tokens page offers no expiry beyond the deployment's maximum.
		MaxTokenTTL: cfg.MaxTokenTTL,
		// OpenID sign-ins' state cookies are sealed with a key derived
		// alike, so the provider may send the browser back to any
		// replica.
		OIDCProviders: cfg.OIDCProviders,
		Logger:        cfg.Log,
	}
	// Passkey ceremonies' state cookies too: a ceremony begun at one
	// replica may finish at another.
	passkeys, err := sealed.NewBox(cfg.derive("console-passkey-state v1")...)
	if err != nil {
		return nil, err
	}
	cc.PasskeyStates = passkeys
	if len(cfg.OIDCProviders) > 0 {
		states, err := sealed.NewBox(cfg.derive("console-oidc-state v1")...)
		if err != nil {
			return nil, err
		}
		cc.OIDCStates = states
	}
	// Without NATS the pages work, only not live. The console has its
	// own Bus: its subscriptions come and go with open pages, apart from
	// the MCP handler's listen streams.
	if cfg.NATS != nil {
		bus, err := events.New(cfg.NATS)
		if err != nil {
			return nil, err
		}
		cc.Events = bus
	}
	return console.New(cc)
}

// newOAuthEdge is the authorization server's endpoints beside the
// console (which serves its consent page), with the client addresses and
// the failed-authentication throttle of the other doors.
func newOAuthEdge(cfg FrontdoorConfig, conn grpc.ClientConnInterface, throttle *frontdoor.AuthThrottle) (*oauthedge.Edge, error) {
	limits := oauthedge.DefaultLimits
	limits.Replicas = cfg.RateLimits.Replicas
	return oauthedge.New(oauthedge.Config{Conn: conn, PublicURL: cfg.PublicURL, Throttle: throttle, Limits: &limits, Logger: cfg.Log})
}

// consoleRoute is the console's share of a front door's paths: the
// OAuth edge's, then every request that the admin API (gRPC, /admin/v1/,
// the JWKS), the MCP endpoint and /.well-known/ do not take. The front
// handler asks it first instead of wrapping the MCP handler in one more
// layer, which would deepen every listen stream's goroutine stack (see
// frontHandler).
type consoleRoute struct {
	mcpPath string
	handler http.Handler    // nil: no console
	edge    *oauthedge.Edge // nil: no authorization server (no console to consent on)
}

// edgeTakes reports whether r is the OAuth edge's: its discovery
// document (under /.well-known/, which the console leaves to the MCP
// handler otherwise) and its endpoints.
func (c consoleRoute) edgeTakes(r *http.Request) bool {
	return c.handler != nil && c.edge != nil && c.edge.Owns(r.URL.Path) && !isGRPC(r)
}

// takes reports whether r is the console's.
func (c consoleRoute) takes(r *http.Request) bool {
	p := r.URL.Path
	return c.handler != nil && p != c.mcpPath && !strings.HasPrefix(p, "/.well-known/") &&
		!strings.HasPrefix(p, adminedge.JSONPrefix) && !isGRPC(r)
}

// isGRPC reports whether r is a gRPC call, which the admin edge serves
// on any path (as adminedge tells them apart).
func isGRPC(r *http.Request) bool {
	return r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}

// endpointPath is the path of the MCP endpoint of publicURL.
func endpointPath(publicURL string) string {
	u, err := url.Parse(endpoint(publicURL))
	if err != nil {
		return "/api/mcp"
	}
	return u.Path
}

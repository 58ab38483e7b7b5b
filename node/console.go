package node

import (
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/console"
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
		Logger:   cfg.Log,
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

// withConsole sends the requests of the MCP endpoint (mcpPath) and of
// /.well-known/ to mcp, and every other to the console. The admin API
// and the JWKS are taken before this, by the admin edge's Wrap.
func withConsole(mcpPath string, mcp, con http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == mcpPath || strings.HasPrefix(p, "/.well-known/") {
			mcp.ServeHTTP(w, r)
			return
		}
		con.ServeHTTP(w, r)
	})
}

// endpointPath is the path of the MCP endpoint of publicURL.
func endpointPath(publicURL string) string {
	u, err := url.Parse(endpoint(publicURL))
	if err != nil {
		return "/api/mcp"
	}
	return u.Path
}

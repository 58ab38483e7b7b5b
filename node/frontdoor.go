package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"

	"github.com/taskwire/taskwire/frontdoor"
	adminedge "github.com/taskwire/taskwire/frontdoor/admin"
	"github.com/taskwire/taskwire/frontdoor/console"
	"github.com/taskwire/taskwire/frontdoor/oauthedge"
	"github.com/taskwire/taskwire/frontdoor/oidcsignin"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/services/keys"
	"github.com/taskwire/taskwire/services/tokens"
)

// Frontdoor is a front door node: MCP over HTTP, calling workers over gRPC.
type Frontdoor struct {
	cfg             FrontdoorConfig
	conn            *grpc.ClientConn
	stopRevocations func()
	stopKeys        func()
	mcp             *frontdoor.Handler
	console         *console.Console
	oauth           *oauthedge.Edge
	admin           *adminedge.Edge
	http            *http.Server
	idle            newConns
	served          chan error
	stopping        atomic.Bool // readiness turns false as stop begins
}

// FrontdoorConfig is what a front door node is built from.
type FrontdoorConfig struct {
	Listener       net.Listener
	PublicURL      string // the deployment's URL: tokens are bound to it
	AllowedOrigins []string
	// Worker names the workers: a gRPC target with a scheme
	// (dns:///name:port, passthrough:///host:port) or a comma-separated
	// list of host:port (see workerTarget).
	Worker      string
	InternalKey string
	NATS        *nats.Conn
	// Key is the deployment's root key: it derives the sealing keys. The
	// keys tokens are signed with come from the workers (KeyService).
	Key *authn.Key
	// Retired are root keys rotated out by configuration: tokens they
	// signed still verify, and what was sealed with keys derived from
	// them still opens.
	Retired     []*authn.Key
	Log         *slog.Logger     // required
	Conformance bool             // also serve the conformance suite's fixtures
	Anonymous   *identity.Caller // who requests without a token act as
	RateLimits  frontdoor.RateLimits
	// MaxTokenTTL refuses tokens meant to live longer (--max-token-ttl);
	// 0: no bound at the front door (workers still apply theirs).
	MaxTokenTTL time.Duration
	// ListenLimits bound the open listen streams per token and tenant;
	// AdminRateLimits the admin API's calls per credential and tenant;
	// AuthThrottle the requests without a valid token per client
	// address, on the MCP endpoint and the admin API together.
	ListenLimits    frontdoor.StreamLimits
	AdminRateLimits frontdoor.RateLimits
	AuthThrottle    frontdoor.AuthThrottleConfig

	// Operator recognises the platform operators' secret on the admin
	// API; nil: nobody acts as an operator.
	Operator *adminedge.OperatorSecret
	// Telemetry counts and traces the MCP requests and the calls to the
	// workers; nil: nothing does.
	Telemetry *telemetry.Telemetry
	// Local, when set, returns the connection MCP and admin calls use
	// instead of the one to the workers (which it falls back on): a worker
	// in the same process (worker.Server.Local).
	Local func(fallback grpc.ClientConnInterface) (grpc.ClientConnInterface, error)
	// Version is the server's version, told to MCP clients.
	Version string
	// OIDCProviders are the OpenID providers people may sign in to the
	// console with; none: local accounts and sign-in links only.
	OIDCProviders []oidcsignin.ProviderConfig
}

// Validate refuses a configuration a front door cannot start from.
func (cfg FrontdoorConfig) Validate() error {
	return requireAll("front door",
		setting{"Listener", cfg.Listener != nil}, setting{"Log", cfg.Log != nil},
		setting{"Key", cfg.Key != nil}, setting{"PublicURL", cfg.PublicURL != ""},
		setting{"Worker", cfg.Worker != ""})
}

// NewFrontdoor validates cfg and makes the connection to the workers,
// which connects on Start.
func NewFrontdoor(cfg FrontdoorConfig) (*Frontdoor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Frontdoor{cfg: cfg, served: make(chan error, 1)}
	var err error
	if n.conn, err = dialWorkers(cfg.Worker, cfg.InternalKey, cfg.dialOptions()...); err != nil {
		return nil, err
	}
	return n, nil
}

// Start waits (at most 30 s) for a healthy worker, loads the revocations
// and keys from it, and serves HTTP on the listener in the background. A
// start that fails undoes what it had started.
func (n *Frontdoor) Start(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			n.undo()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitForWorker(ctx, n.conn); err != nil {
		return err
	}
	checks, err := n.follow(ctx)
	if err != nil {
		return err
	}
	// MCP and admin calls go to a worker in this process without gRPC's
	// machinery when there is one (serve); everything else over gRPC.
	var calls grpc.ClientConnInterface = n.conn
	if n.cfg.Local != nil {
		if calls, err = n.cfg.Local(n.conn); err != nil {
			return err
		}
	}
	if err := n.handlers(calls, checks); err != nil {
		return err
	}
	con := consoleRoute{mcpPath: endpointPath(n.cfg.PublicURL), handler: n.console, edge: n.oauth}
	n.http = newHTTPServer(n.cfg.frontHandler(n.ready, con, n.admin.Wrap(n.mcp)), n.idle.track)
	go func() { n.served <- n.http.Serve(n.cfg.Listener) }()
	return nil
}

// follow loads the live revocations and the keys that verify from a
// worker, then follows their NATS broadcasts.
func (n *Frontdoor) follow(ctx context.Context) (tokenChecks, error) {
	cfg := n.cfg
	// Revoked tokens are refused at once: the set loads the live
	// revocations from a worker, then follows the NATS broadcast.
	revs, err := tokens.NewRevocations(tokens.RevocationsConfig{Load: tokens.FromWorker(n.conn), Logger: cfg.Log})
	if err != nil {
		return tokenChecks{}, err
	}
	if n.stopRevocations, err = revs.Start(ctx, cfg.NATS); err != nil {
		return tokenChecks{}, err
	}
	// Tokens verify with the public keys the workers list, reloaded on
	// each rotation, and the retired keys of the configuration.
	set, err := keys.NewSet(keys.SetConfig{Load: keys.FromWorker(n.conn), Static: keys.FromConfig(cfg.Retired), Logger: cfg.Log})
	if err != nil {
		return tokenChecks{}, err
	}
	if n.stopKeys, err = set.Start(ctx, cfg.NATS); err != nil {
		return tokenChecks{}, err
	}
	return tokenChecks{revoked: revs.Refuses, keys: set}, nil
}

// handlers builds the MCP handler and, beside it, the admin API (JSON and
// gRPC), the JWKS and the web console.
func (n *Frontdoor) handlers(calls grpc.ClientConnInterface, checks tokenChecks) error {
	throttle, err := frontdoor.NewAuthThrottle(n.cfg.AuthThrottle)
	if err != nil {
		return err
	}
	if n.mcp, err = newMCPHandler(n.cfg, calls, n.Endpoint(), checks, throttle); err != nil {
		return err
	}
	if n.admin, err = newAdminEdge(n.cfg, calls, checks, throttle); err != nil {
		return err
	}
	if n.oauth, err = newOAuthEdge(n.cfg, calls, throttle); err != nil {
		return err
	}
	n.console, err = newConsole(n.cfg, calls, throttle)
	return err
}

// undo stops what a failed Start had started.
func (n *Frontdoor) undo() {
	if n.stopKeys != nil {
		n.stopKeys()
	}
	if n.stopRevocations != nil {
		n.stopRevocations()
	}
	n.conn.Close()
}

// Endpoint is the MCP endpoint's URL.
func (n *Frontdoor) Endpoint() string { return endpoint(n.cfg.PublicURL) }

// Done yields the error that ended serving HTTP.
func (n *Frontdoor) Done() <-chan error { return n.served }

// Stop stops accepting, lets requests in flight finish within ctx, then
// closes the connection to the workers.
func (n *Frontdoor) Stop(ctx context.Context) error {
	n.stopping.Store(true)
	n.mcp.Shutdown()     // listen streams end with their result
	n.console.Shutdown() // live pages reconnect to another front door
	err := shutdownHTTP(ctx, n.http, &n.idle)
	n.admin.Stop()
	n.stopKeys()
	n.stopRevocations()
	n.conn.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ready reports whether the front door can serve a call: it is not
// stopping, a worker is healthy, and NATS (which carries progress and
// revocations) is connected.
func (n *Frontdoor) ready(context.Context) error {
	if n.stopping.Load() {
		return errors.New("shutting down")
	}
	if s := n.conn.GetState(); s != connectivity.Ready {
		return fmt.Errorf("no healthy worker (connection %s)", s)
	}
	if nc := n.cfg.NATS; nc != nil && !nc.IsConnected() {
		return fmt.Errorf("NATS is %s", nc.Status())
	}
	return nil
}

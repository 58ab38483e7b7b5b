// Package admin is the front door's edge of the admin API
// (taskwire.admin.v1.AdminService): it authenticates each call, as a
// platform operator (the deployment's operator secret) or as a member
// (an admin token of a person, verified as the MCP endpoint verifies its
// tokens, revocation included; MCP tokens are refused), and forwards it to
// a worker, where services/admin decides
// what the caller may do. It serves the API two ways on the front door's
// port:
//
//   - JSON over HTTP for curl and scripts: POST /admin/v1/<Method> with
//     the request message in protojson (httpjson.go);
//   - gRPC for grpcurl and SDKs, over HTTP/2 without TLS (grpc.go).
//
// It also serves the token signing keys as a JWKS (jwks.go). It holds no
// state; any replica answers any call.
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// TokenVerifier turns an admin token into its caller; *authn.Verifier for
// the audience authn.AdminAudience is one. It must check revocation, as
// for the MCP endpoint, and refuse MCP tokens (authn.ReasonOtherKind).
type TokenVerifier interface {
	Verify(ctx context.Context, raw string) (identity.Caller, error)
}

// Config configures an Edge.
type Config struct {
	// Conn reaches the workers, with the internal key on every call.
	Conn grpc.ClientConnInterface
	// Verifier checks admin tokens. Required.
	Verifier TokenVerifier
	// Operator recognises the operator secret. Nil: no one acts as an
	// operator.
	Operator *OperatorSecret
	// Keys are the public keys tokens may be signed with, the signing key
	// first, for /.well-known/jwks.json.
	Keys []PublicKey
	// PublicKeys, when set, returns the keys for the JWKS on each request,
	// instead of Keys: the keys a keyring holds now.
	PublicKeys func() []PublicKey
	// RateLimiter, when set, limits the calls of each credential (a
	// token by its jti; the operator secret) and of each tenant a call
	// names (limits.go); nil: no limits.
	RateLimiter *frontdoor.RateLimiter
	// AuthThrottle, when set, refuses requests from a client address
	// that sent too many without a valid credential; the MCP endpoint
	// shares it.
	AuthThrottle *frontdoor.AuthThrottle
	// MaxBodyBytes caps a JSON request body; 0 means 1 MiB.
	MaxBodyBytes int64
	// Logger receives the edge's own failures (forwarding, encoding),
	// which callers see only as "internal error". Required.
	Logger *slog.Logger
}

// Validate reports whether c can build an Edge.
func (c Config) Validate() error {
	switch {
	case c.Conn == nil:
		return errors.New("admin: Config.Conn is nil")
	case c.Verifier == nil:
		return errors.New("admin: Config.Verifier is nil")
	case c.Logger == nil:
		return errors.New("admin: Config.Logger is nil (pass slog.New(slog.DiscardHandler) to log nothing)")
	case c.MaxBodyBytes < 0:
		return errors.New("admin: Config.MaxBodyBytes is negative")
	}
	return nil
}

// Edge serves the admin API and the JWKS. It is safe for concurrent use.
type Edge struct {
	cfg     Config
	log     *slog.Logger
	methods map[string]method // by method name, e.g. "ListTenants"
	grpc    *grpc.Server
	jwks    []byte
}

// method is one RPC of AdminService, with its message types.
type method struct {
	name    string
	full    string // "/taskwire.admin.v1.AdminService/ListTenants"
	in, out protoreflect.MessageType
	inName  string // the request message's name, for errors
	stream  bool   // the worker answers with a stream of messages (stream.go)
}

// New returns an Edge for cfg.
func New(cfg Config) (*Edge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	e := &Edge{cfg: cfg, log: cfg.Logger, methods: map[string]method{}}
	if err := e.loadMethods(); err != nil {
		return nil, err
	}
	if cfg.PublicKeys == nil {
		jwks, err := encodeJWKS(cfg.Keys)
		if err != nil {
			return nil, err
		}
		e.jwks = jwks
	}
	e.grpc = e.newGRPCServer()
	return e, nil
}

// loadMethods reads AdminService's methods from its descriptor, so the
// edge follows the contract without code per method.
func (e *Edge) loadMethods() error {
	sd := adminv1.File_taskwire_admin_v1_admin_proto.Services().ByName("AdminService")
	if sd == nil {
		return errors.New("admin: AdminService is not in its descriptor")
	}
	for i := range sd.Methods().Len() {
		md := sd.Methods().Get(i)
		in, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
		if err != nil {
			return err
		}
		out, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
		if err != nil {
			return err
		}
		name := string(md.Name())
		if md.IsStreamingClient() {
			return fmt.Errorf("admin: %s streams its requests, which the edge cannot check", name)
		}
		e.methods[name] = method{
			name: name, full: "/" + string(sd.FullName()) + "/" + name,
			in: in, out: out, inName: string(md.Input().Name()), stream: md.IsStreamingServer(),
		}
	}
	return nil
}

// JSONPrefix starts the path of every JSON method: JSONPrefix + "ListTenants".
const JSONPrefix = "/admin/v1/"

// JWKSPath is where the public signing keys are served.
const JWKSPath = "/.well-known/jwks.json"

// Wrap returns a handler serving the admin API and the JWKS, and passing
// every other request to next (the MCP endpoint).
func (e *Edge) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case isGRPC(r):
			e.serveGRPC(w, r)
		case strings.HasPrefix(r.URL.Path, JSONPrefix):
			e.serveJSON(w, r)
		case r.URL.Path == JWKSPath:
			e.serveJWKS(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// Stop ends the gRPC calls still running; call it once the HTTP server
// has shut down.
func (e *Edge) Stop() { e.grpc.Stop() }

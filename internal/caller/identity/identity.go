// Package identity carries the verified caller of one request through a
// context: the front door puts it into gRPC metadata from the token it
// verified, the worker reads it back and hands it to the services.
package identity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
)

// Metadata keys set by the front door on every call to a worker. They are
// never taken from tool arguments.
const (
	MDTenant = "x-taskwire-tenant"
	MDMember = "x-taskwire-member"
	MDScopes = "x-taskwire-scopes"
	MDToken  = "x-taskwire-token-id"
	// MDToolsets carries the toolsets the token is limited to, space
	// separated; absent or empty means every toolset.
	MDToolsets = "x-taskwire-toolsets"
	// MDExpires carries the token's expiry (its "exp", Unix seconds), so
	// the worker can compare it with the token's record; absent from
	// front doors older than the comparison.
	MDExpires = "x-taskwire-token-exp"
	// MDKind carries what the token is for: KindMCP (or absent) or
	// KindAdmin or KindSession.
	MDKind = "x-taskwire-token-kind"

	// MDSessionLabel carries the client's own name for its session, for
	// the audit log: the client's word, never trusted for anything else.
	MDSessionLabel = "x-taskwire-session-label"
)

// The kinds of token: an MCP token acts through tools with its scopes; an
// admin token is a person's credential for the admin API, with no scopes;
// a console session is a person signed in to the console, acting as
// their member of one tenant with every scope, through the tools' RPCs
// and the admin API alike. A session's "token id" is its public session
// id, which the worker checks against the session's record.
const (
	KindMCP     = "mcp"
	KindAdmin   = "admin"
	KindSession = "session"
)

// Caller is who makes a call: a member of one tenant, acting with the scopes
// of one token.
type Caller struct {
	Tenant  string   // tenant slug, e.g. "acme"
	Member  int      // member id within the tenant
	Scopes  []string // token scopes: read, write, comment
	TokenID string   // the token's jti, for audit
	// Toolsets are the toolsets the token is limited to; none means all.
	Toolsets []string
	// Expires is the token's expiry as its claims say; zero when unknown
	// (a call from an older front door).
	Expires time.Time
	// Kind is KindMCP, KindAdmin or KindSession; empty means KindMCP.
	Kind string
}

// IsAdmin reports whether c acts with an admin token.
func (c Caller) IsAdmin() bool { return c.Kind == KindAdmin }

// IsSession reports whether c is a person signed in to the console.
func (c Caller) IsSession() bool { return c.Kind == KindSession }

// Validate reports whether c names a tenant and a member.
func (c Caller) Validate() error {
	if c.Tenant == "" {
		return errors.New("identity: no tenant")
	}
	if c.Member <= 0 {
		return errors.New("identity: no member")
	}
	return nil
}

type ctxKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the caller in ctx, if any.
func FromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(ctxKey{}).(Caller)
	return c, ok
}

// AppendToOutgoing adds c to the outgoing gRPC metadata of ctx.
func AppendToOutgoing(ctx context.Context, c Caller) context.Context {
	kv := []string{
		MDTenant, c.Tenant,
		MDMember, strconv.Itoa(c.Member),
		MDScopes, strings.Join(c.Scopes, " "),
		MDToken, c.TokenID,
		MDToolsets, strings.Join(c.Toolsets, " "),
	}
	if !c.Expires.IsZero() {
		kv = append(kv, MDExpires, strconv.FormatInt(c.Expires.Unix(), 10))
	}
	if c.Kind != "" {
		kv = append(kv, MDKind, c.Kind)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// FromIncoming reads the caller from incoming gRPC metadata.
func FromIncoming(ctx context.Context) (Caller, error) {
	// One key at a time: FromIncomingContext copies the whole map.
	get := func(k string) string {
		if v := metadata.ValueFromIncomingContext(ctx, k); len(v) == 1 {
			return v[0]
		}
		return ""
	}
	c := Caller{Tenant: get(MDTenant), Scopes: strings.Fields(get(MDScopes)), TokenID: get(MDToken), Kind: get(MDKind)}
	if ts := strings.Fields(get(MDToolsets)); len(ts) > 0 {
		c.Toolsets = ts // else nil: every toolset, as the token had it
	}
	if exp := get(MDExpires); exp != "" {
		sec, err := strconv.ParseInt(exp, 10, 64)
		if err != nil {
			return Caller{}, fmt.Errorf("identity: bad token expiry %q", exp)
		}
		c.Expires = time.Unix(sec, 0)
	}
	switch c.Kind {
	case "", KindMCP, KindAdmin, KindSession:
	default:
		return Caller{}, fmt.Errorf("identity: unknown token kind %q", c.Kind)
	}
	member := get(MDMember)
	if member == "" {
		return Caller{}, errors.New("identity: no caller in the call's metadata")
	}
	m, err := strconv.Atoi(member)
	if err != nil {
		return Caller{}, fmt.Errorf("identity: bad member %q", member)
	}
	c.Member = m
	return c, c.Validate()
}

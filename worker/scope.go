package worker

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/access"
)

// requireScope refuses a call whose token scopes do not cover the scope of
// the method's (taskwire.mcp.v1.tool) option, in a sentence a model can act
// on, marked access.ReasonInsufficientScope, and a call to a tool outside
// the toolsets its token is limited to (access.ReasonToolsetForbids). The
// front door refuses both before calling; this second check keeps a front
// door's bug from widening a token. Methods without the option need only a
// valid identity.
func (s *Server) requireScope(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.callerless(info.FullMethod) || identity.IsOperator(ctx) {
		return handler(ctx, req)
	}
	rule, err := methods.Lookup(info.FullMethod)
	if err != nil {
		// Fail closed: a method we cannot describe, we cannot authorize.
		return nil, s.internal(ctx, info.FullMethod, err)
	}
	c, ok := identity.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "the call names no valid caller (tenant, member, scopes)")
	}
	if !authz.Allows(c.Scopes, rule.Scope) {
		return nil, access.InsufficientScope(rule.Name, rule.Scope, fmt.Sprintf(
			"This token lacks the %[1]s scope needed by %[2]s; ask an admin for a token with %[1]s.",
			rule.Scope, rule.Name))
	}
	if rule.IsTool && !authz.ToolsetAllows(c.Toolsets, rule.Toolset) {
		return nil, access.ToolsetForbids(rule.Name, rule.Toolset, c.Toolsets)
	}
	return handler(ctx, req)
}

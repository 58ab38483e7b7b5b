package worker

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

// scopeRule is what a method needs: the scope its tool option names ("" for
// none), and the tool's name and title, for the refusal message.
type scopeRule struct {
	scope   string
	least   string // the weakest role allowed (the option's min_role), "" for any
	isTool  bool   // the method carries the tool option
	toolset string // the tool's toolset
	tool    string
	title   string
	err     error // the method is not in the registry
}

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
	rule := s.ruleFor(info.FullMethod)
	if rule.err != nil {
		// Fail closed: a method we cannot describe, we cannot authorize.
		return nil, s.internal(ctx, info.FullMethod, rule.err)
	}
	c, ok := identity.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "the call names no valid caller (tenant, member, scopes)")
	}
	if !authz.Allows(c.Scopes, rule.scope) {
		return nil, access.InsufficientScope(rule.tool, rule.scope, fmt.Sprintf(
			"This token lacks the %[1]s scope needed by %[2]s; ask an admin for a token with %[1]s.",
			rule.scope, rule.tool))
	}
	if rule.isTool && !authz.ToolsetAllows(c.Toolsets, rule.toolset) {
		return nil, access.ToolsetForbids(rule.tool, rule.toolset, c.Toolsets)
	}
	return handler(ctx, req)
}

// ruleFor returns the rule of a full method name, reading the registry once
// per method.
func (s *Server) ruleFor(fullMethod string) scopeRule {
	if r, ok := s.scopes.Load(fullMethod); ok {
		return r.(scopeRule)
	}
	r := lookupRule(fullMethod)
	s.scopes.Store(fullMethod, r)
	return r
}

// lookupRule reads the tool option of "/pkg.Service/Method".
func lookupRule(fullMethod string) scopeRule {
	name := strings.Replace(strings.TrimPrefix(fullMethod, "/"), "/", ".", 1)
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return scopeRule{err: fmt.Errorf("method %s not in the protobuf registry: %w", name, err)}
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	if !ok {
		return scopeRule{err: fmt.Errorf("%s is not a method", name)}
	}
	tool, _ := proto.GetExtension(md.Options(), mcpv1.E_Tool).(*mcpv1.Tool)
	if tool == nil {
		return scopeRule{tool: string(md.Name())}
	}
	return scopeRule{scope: tool.GetScope(), least: tool.GetMinRole(), isTool: true, toolset: tool.GetToolset(), tool: tool.GetName(), title: tool.GetTitle()}
}

package worker

import (
	"context"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/services/access"
)

// AccessResolver reads what the verified caller currently is on its
// tenant (internal/tenancy.Resolver reads it from the database). An
// unknown tenant or member is a domainerr Unauthenticated error.
type AccessResolver interface {
	Resolve(ctx context.Context, c identity.Caller) (identity.Access, error)
}

// requireRole resolves the caller's Access once per call, refuses a call
// its role does not permit (the tool's scope, or a min_role above it) with
// a sentence naming role, tenant and tool (access.ReasonRoleForbids), and
// hands the Access on in the context.
func (s *Server) requireRole(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.cfg.Access == nil || s.callerless(info.FullMethod) || identity.IsOperator(ctx) {
		return handler(ctx, req)
	}
	c, ok := identity.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "the call names no valid caller (tenant, member, scopes)")
	}
	rule, err := methods.Lookup(info.FullMethod)
	if err != nil {
		return nil, s.internal(ctx, info.FullMethod, err)
	}
	a, err := s.cfg.Access.Resolve(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, info.FullMethod, err)
	}
	noteAccess(ctx, a)
	refusal := rule.Refusal(a.Role, a.Tenant)
	if !authz.RoleAllows(a.Role, rule.Scope) {
		return nil, access.RoleForbids(refusal)
	}
	if !authz.AtLeast(a.Role, rule.MinRole) {
		return nil, roleTooWeak(refusal, rule.MinRole)
	}
	return handler(identity.WithAccess(ctx, a), req)
}

// roleTooWeak is the refusal of a tool whose min_role is stronger than
// the caller's role: a ROLE_FORBIDS refusal like access.RoleForbids, so
// the front door shows its sentence as the tool's result, but saying whom
// the tool is for.
func roleTooWeak(r authz.Refusal, least string) error {
	st := status.New(codes.PermissionDenied, r.LeastRoleSentence(least))
	info := &errdetails.ErrorInfo{Reason: access.ReasonRoleForbids, Domain: access.Domain, Metadata: map[string]string{
		"role": r.Role, "tool": r.Tool, "scope": r.Need, "min_role": least,
	}}
	if withInfo, err := st.WithDetails(info); err == nil {
		st = withInfo
	}
	return st.Err()
}

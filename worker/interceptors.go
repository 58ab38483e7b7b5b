package worker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/calllog"
	"github.com/taskwire/taskwire/internal/methods"
)

// MDRequestID is the metadata key of the request id the front door sets,
// logged with every call so one request can be followed across processes.
const MDRequestID = calllog.MDRequestID

// healthPrefix starts the methods of the standard health service, which
// load balancers and probes call without any caller identity.
const healthPrefix = "/grpc.health.v1.Health/"

// unaryChain is every unary call's path, outermost first. The order matters:
//
//  1. logging: one record per call, with the final code, so it goes first
//     and even a recovered panic gets its record.
//  2. recover: a panic anywhere below becomes Internal, logged with its
//     stack, instead of killing the process.
//  3. guard: while the database is unreachable (the breaker is open, see
//     breaker), every call but health is refused at once with
//     Unavailable, touching nothing: outside every step that reads the
//     database.
//  4. identity: the caller the front door verified, from metadata, into
//     the context, trusted only from a call carrying the internal key when
//     one is configured; none → Unauthenticated. Its token must be what
//     was issued (checkToken: the claims equal the token's record, which
//     is live) and of the kind the method takes (an admin token for
//     Config.OperatorServices, an MCP token elsewhere); a console
//     session's caller is checked against its session instead
//     (Config.Sessions) and may call both; an operator's session calls
//     Config.OperatorServices as an operator (sessionContext). Health is
//     exempt.
//     A call of Config.OperatorServices may instead carry the operator
//     mark, and then skips steps 6 and 7 (see operatorCall).
//  5. audit: every named call, with its outcome, into the audit log
//     through Config.Auditor, before the call is answered: a write's row
//     in the write's own transaction, any other call's in a group commit
//     (see auditCall). Before scope and role, so that their refusals are
//     recorded too.
//  6. scope: the token's scopes must cover the scope the method's
//     (taskwire.mcp.v1.tool) option names; otherwise PermissionDenied
//     (reason INSUFFICIENT_SCOPE). Checked before the role, since it needs
//     no database and a stronger token is what the client can ask for.
//  7. access: the member's current role, read from the database through
//     Config.Access, must permit the same scope, and be at least the
//     option's min_role; otherwise PermissionDenied (reason ROLE_FORBIDS).
//     The Access read goes into the context for the services
//     (identity.AccessFrom).
//  8. refuseWrites: while the disk of the database is full
//     (Config.Disk), a call that would write is refused with the sentence
//     saying so, before it touches the database; reads go on.
//  9. progress: a Reporter publishing to NATS when the call asked for one,
//     and the trailer counting what was published.
//  10. errors: the one place where service errors become gRPC statuses,
//     innermost so that everything above sees statuses only.
func (s *Server) unaryChain() []grpc.UnaryServerInterceptor {
	return []grpc.UnaryServerInterceptor{
		s.logCall,
		s.recoverPanic,
		s.guard,
		s.requireIdentity,
		s.auditCall,
		s.requireScope,
		s.requireRole,
		s.refuseWrites,
		s.reportProgress,
		s.translateErrors,
	}
}

// logCall logs one record per call when it ends. It logs who called and
// how it went, never tokens or what the call carried. The call's identity
// (request id, tenant, member, tool) also goes into the context, so that
// every record logged during the call carries it (package calllog).
func (s *Server) logCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	var who []slog.Attr
	if c, idErr := identity.FromIncoming(ctx); idErr == nil {
		who = append(who, slog.String(calllog.KeyTenant, c.Tenant), slog.Int(calllog.KeyMember, c.Member))
	}
	if rule, err := methods.Lookup(info.FullMethod); err == nil && rule.IsTool {
		who = append(who, slog.String(calllog.KeyTool, rule.Name))
	}
	if id := requestID(ctx); id != "" {
		who = append(who, slog.String(calllog.KeyRequestID, id))
	}
	if id := traceID(ctx); id != "" {
		who = append(who, slog.String(calllog.KeyTraceID, id))
	}
	ctx = calllog.Start(ctx)
	calllog.Set(ctx, who...)
	resp, err := handler(ctx, req)
	code := status.Code(err)
	attrs := append([]slog.Attr{
		slog.String("method", info.FullMethod),
		slog.String("code", code.String()),
		slog.Duration("duration", time.Since(start)),
	}, who...)
	s.log.LogAttrs(ctx, callLevel(info.FullMethod, code), "rpc", attrs...)
	return resp, err
}

// traceID returns the trace id of the W3C traceparent the call carries,
// so a call's log record can be found from the client's trace.
func traceID(ctx context.Context) string {
	v := metadata.ValueFromIncomingContext(ctx, "traceparent")
	if len(v) != 1 || len(v[0]) != 55 || v[0][2] != '-' {
		return ""
	}
	return v[0][3:35]
}

// callLevel keeps health probes out of the default log and raises calls
// that failed on our side.
func callLevel(method string, code codes.Code) slog.Level {
	switch {
	case code == codes.Internal || code == codes.Unknown || code == codes.DataLoss:
		return slog.LevelError
	case strings.HasPrefix(method, healthPrefix):
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// requestID returns the call's request id, cut short so a client cannot
// flood the log through it.
func requestID(ctx context.Context) string {
	v := metadata.ValueFromIncomingContext(ctx, MDRequestID)
	if len(v) == 0 {
		return ""
	}
	const maxLen = 128
	if len(v[0]) > maxLen {
		return v[0][:maxLen]
	}
	return v[0]
}

// recoverPanic turns a panic into Internal with a ref, logging the value
// and stack under the same ref.
func (s *Server) recoverPanic(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.internal(ctx, info.FullMethod, fmt.Errorf("panic: %v", r),
				slog.String("stack", string(debug.Stack())))
			resp = nil
		}
	}()
	return handler(ctx, req)
}

// isHealth reports whether method is the standard health service's.
func isHealth(method string) bool { return strings.HasPrefix(method, healthPrefix) }

// callerless reports whether a method is called with no caller: the
// health service, and Config.Unnamed (which still needs the internal key).
func (s *Server) callerless(method string) bool {
	return isHealth(method) || slices.Contains(s.cfg.Unnamed, method)
}

// requireIdentity puts the caller named in metadata into the context.
func (s *Server) requireIdentity(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if isHealth(info.FullMethod) {
		return handler(ctx, req)
	}
	if s.cfg.InternalKey != "" && !identity.HasInternalKey(ctx, s.cfg.InternalKey) {
		return nil, status.Error(codes.Unauthenticated, "the call does not come from a front door of this deployment")
	}
	if s.callerless(info.FullMethod) {
		return handler(ctx, req)
	}
	if identity.OperatorFromIncoming(ctx) {
		return s.operatorCall(ctx, req, info, handler)
	}
	c, err := identity.FromIncoming(ctx)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "the call names no valid caller (tenant, member, scopes)")
	}
	if err := s.checkKind(c, info.FullMethod); err != nil {
		return nil, err
	}
	if c.IsSession() {
		acc, err := s.checkSession(ctx, info.FullMethod, c)
		if err != nil {
			return nil, err
		}
		return handler(s.sessionContext(ctx, info.FullMethod, c, acc), req)
	}
	if err := s.checkCredential(ctx, c); err != nil {
		return nil, err
	}
	return handler(identity.NewContext(ctx, c), req)
}

// checkCredential checks the token c calls with (when Config.Tokens is
// set), noting the token's use. The note is written with the call's own
// context: a call whose caller is gone (its front door killed, its client
// hung up) must not wait on for a lock another process holds (SQLite's
// busy timeout, a PostgreSQL row lock), and a note not written is written
// by the token's next call.
func (s *Server) checkCredential(ctx context.Context, c identity.Caller) error {
	if s.cfg.Tokens == nil {
		return nil
	}
	if err := s.checkToken(ctx, c); err != nil {
		return err
	}
	if err := s.cfg.Tokens.Touch(ctx, c.TokenID); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "worker: cannot note the token's last use", "err", err)
	}
	return nil
}

// operatorCall runs a call a front door marked as a platform operator's:
// an operator is no member of any tenant, so the call names no caller and
// has no token or role to check; the service (the admin API) authorizes
// it. Other methods refuse the mark: operators never act through tools.
func (s *Server) operatorCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.adminMethod(info.FullMethod) {
		return handler(identity.NewOperatorContext(ctx), req)
	}
	return nil, status.Error(codes.PermissionDenied, "platform operators act through the admin API only")
}

package worker

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// notIssued is the answer to a token with no record, or whose claims
// differ from its record: neutral, so a forger learns nothing of what
// was issued, nor of any tenant.
const notIssued = "this token is not one this server issued, or was altered: ask an admin for a new one"

// checkToken refuses c unless its token is what was issued: recorded,
// with the claims the front door verified equal to its record (a token
// re-signed with a key of the deployment, with a wider scope or another
// member or tenant, is refused however well signed), live, and meant to
// live no longer than the maximum. A token with no record or claims that
// differ is logged at WARN as a security event, naming the token's id, the
// tenant of its record and which claim differed, never the token.
func (s *Server) checkToken(ctx context.Context, c identity.Caller) error {
	rec, err := s.cfg.Tokens.Lookup(ctx, c.TokenID)
	if err != nil && ctx.Err() != nil {
		return s.toStatus(ctx, "", ctx.Err()) // the caller left: no outage
	}
	if err != nil {
		if st := s.dbFailure(ctx, err); st != nil {
			return st
		}
		s.log.ErrorContext(ctx, "worker: cannot check the token", "err", err)
		return status.Error(codes.Unavailable, "the token could not be checked just now; try again")
	}
	if !rec.Known() {
		s.security(ctx, "a token with no record was refused", slog.String("jti", c.TokenID), slog.String("claimed_tenant", c.Tenant))
		return status.Error(codes.Unauthenticated, notIssued)
	}
	if claim := rec.Mismatch(c); claim != "" {
		s.security(ctx, "a token whose claims differ from its record was refused",
			slog.String("jti", rec.ID), slog.String("tenant", rec.Tenant), slog.String("claim", claim))
		return status.Error(codes.Unauthenticated, notIssued)
	}
	switch {
	case rec.Revoked:
		return status.Error(codes.Unauthenticated, "the token was revoked: ask an admin for a new one")
	case time.Now().After(rec.ExpiresAt.Add(authn.DefaultLeeway)):
		return status.Errorf(codes.Unauthenticated, "the token expired at %s: ask for a new one", rec.ExpiresAt.UTC().Format(time.RFC3339))
	case s.cfg.MaxTokenTTL > 0 && rec.ExpiresAt.Sub(rec.CreatedAt) > s.cfg.MaxTokenTTL:
		return status.Errorf(codes.Unauthenticated, "the token was made to live %s, longer than this server's maximum token lifetime of %s: ask for a new one",
			authn.FormatTTL(rec.ExpiresAt.Sub(rec.CreatedAt).Truncate(time.Hour)), authn.FormatTTL(s.cfg.MaxTokenTTL))
	}
	return nil
}

// security logs a security event at WARN.
func (s *Server) security(ctx context.Context, msg string, attrs ...slog.Attr) {
	s.log.LogAttrs(ctx, slog.LevelWarn, "security: "+msg, attrs...)
}

// checkKind refuses a token of the wrong kind for method: admin tokens
// call the admin API only, and MCP tokens never administer. Front doors
// refuse both first; this keeps a front door's bug from mixing them. A
// person in the console (a session) calls both: the admin API decides by
// their role, as for their admin token.
func (s *Server) checkKind(c identity.Caller, method string) error {
	admin := s.adminMethod(method)
	switch {
	case c.IsSession():
		return nil
	case c.IsAdmin() && !admin:
		return status.Error(codes.Unauthenticated, "this is an admin token, for the admin API only: use an MCP token here")
	case !c.IsAdmin() && admin:
		return status.Error(codes.Unauthenticated, "this is an MCP token, which cannot administer: use the operator secret or an admin token")
	}
	return nil
}

// adminMethod reports whether method belongs to Config.OperatorServices.
func (s *Server) adminMethod(method string) bool {
	for _, svc := range s.cfg.OperatorServices {
		if strings.HasPrefix(method, "/"+svc+"/") {
			return true
		}
	}
	return false
}

// checkSession refuses a console caller whose session is over, or whose
// account is not the member's. Its answer is the session service's
// sentence ("sign in again"); an outage is Unavailable.
func (s *Server) checkSession(ctx context.Context, method string, c identity.Caller) (identity.SessionAccount, error) {
	if s.cfg.Sessions == nil {
		return identity.SessionAccount{}, status.Error(codes.Unauthenticated, "this server does not take console sessions: use a token")
	}
	acc, err := s.cfg.Sessions.CheckCaller(ctx, c)
	switch {
	case err == nil:
		return acc, nil
	case domainerr.KindOf(err) == domainerr.Unauthenticated:
		return acc, status.Error(codes.Unauthenticated, domainerr.Message(err))
	case ctx.Err() != nil:
		return acc, s.toStatus(ctx, method, ctx.Err()) // the caller left: no outage
	}
	if st := s.dbFailure(ctx, err); st != nil {
		return acc, st
	}
	s.log.ErrorContext(ctx, "worker: cannot check the session", "method", method, "err", err)
	return acc, status.Error(codes.Unavailable, "the session could not be checked just now; try again")
}

// sessionContext is the context of a console caller's call, and the one
// place where a person becomes a platform operator: when their account
// is an operator's (accounts.operator, read with their session on this
// very call) and the method is one of Config.OperatorServices, the call
// carries the operator mark, naming the person, beside their Caller, so
// the admin API lets them act on every tenant and the audit log names
// them. Every other method (the tools' RPCs: the board) sees them as the
// member they are, with that member's role.
func (s *Server) sessionContext(ctx context.Context, method string, c identity.Caller, acc identity.SessionAccount) context.Context {
	ctx = identity.NewContext(ctx, c)
	if acc.Operator && s.adminMethod(method) {
		ctx = identity.NewOperatorPersonContext(ctx, acc.Person)
	}
	return ctx
}

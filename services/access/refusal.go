package access

import (
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/caller/authz"
)

// Refusals are PermissionDenied statuses with an errdetails.ErrorInfo of
// Domain whose Reason says which limit refused the call, so the front door
// can answer each as MCP expects: a token's missing scope is HTTP 403 with
// an insufficient_scope challenge (the client may ask for a stronger
// token); a role's refusal is a tool result with isError, since no token
// can lift it.
const (
	Domain                  = "taskwire"
	ReasonRoleForbids       = "ROLE_FORBIDS"
	ReasonInsufficientScope = "INSUFFICIENT_SCOPE"
)

// RoleForbids returns the status of a call r's role does not permit, with
// r's sentence as its message.
func RoleForbids(r authz.Refusal) error {
	return refusal(r.Sentence(), ReasonRoleForbids, map[string]string{
		"role": r.Role, "tool": r.Tool, "scope": r.Need,
	})
}

// InsufficientScope returns the status of a call whose token lacks the
// scope tool needs, with msg as its message.
func InsufficientScope(tool, scope, msg string) error {
	return refusal(msg, ReasonInsufficientScope, map[string]string{"tool": tool, "scope": scope})
}

func refusal(msg, reason string, md map[string]string) error {
	return reasoned(codes.PermissionDenied, msg, reason, md)
}

// reasoned returns a status of code with msg, marked with an
// errdetails.ErrorInfo of Domain and reason.
func reasoned(code codes.Code, msg, reason string, md map[string]string) error {
	st := status.New(code, msg)
	if withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: Domain, Metadata: md}); err == nil {
		st = withInfo
	}
	return st.Err()
}

// Reason returns the reason of a refusal made by RoleForbids or
// InsufficientScope, with its metadata (tool, scope, and role), or "" for
// any other error.
func Reason(err error) (string, map[string]string) {
	return reasonOf(err, codes.PermissionDenied)
}

// reasonOf returns the reason and metadata reasoned gave err, when err is
// a status of code; "" otherwise.
func reasonOf(err error, code codes.Code) (string, map[string]string) {
	var gs interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &gs) {
		return "", nil
	}
	st := gs.GRPCStatus()
	if st.Code() != code {
		return "", nil
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return info.GetReason(), info.GetMetadata()
		}
	}
	return "", nil
}

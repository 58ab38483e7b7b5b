// Package content serves resources, prompts and argument completion to
// the front door (frontdoor.ResourceBackend, PromptBackend and
// CompletionBackend) by calling workers over gRPC as the caller, exactly
// as tools are called: nothing here reads the database. Backend serves the
// board's from BoardService, Remote any worker's ContentService, and
// Composite several of them as one.
package content

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
)

// Config configures a Backend.
type Config struct {
	// Conn reaches the workers. Required.
	Conn grpc.ClientConnInterface
	// Timeout bounds each gRPC call (default 30 s).
	Timeout time.Duration
}

// Validate reports a config New cannot work with.
func (c Config) Validate() error {
	if c.Conn == nil {
		return errors.New("content: Config.Conn is required")
	}
	return nil
}

// Backend serves resources, prompts and completion for one caller at a
// time. It is safe for concurrent use.
type Backend struct {
	board   taskwirev1.BoardServiceClient
	timeout time.Duration
}

// defaultTimeout bounds each gRPC call unless a config says otherwise.
const defaultTimeout = 30 * time.Second

// New returns a Backend for cfg.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Backend{board: taskwirev1.NewBoardServiceClient(cfg.Conn), timeout: cmp.Or(cfg.Timeout, defaultTimeout)}, nil
}

func (b *Backend) as(ctx context.Context, c identity.Caller) (context.Context, context.CancelFunc) {
	return as(ctx, c, b.timeout)
}

// as returns ctx bounded by timeout and carrying c in the outgoing
// metadata, which the worker verifies like a tool call's.
func as(ctx context.Context, c identity.Caller, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return identity.AppendToOutgoing(ctx, c), cancel
}

// translate turns a worker's status into the front door's terms, the one
// error translation of this package: what the caller named wrongly (a
// board that does not exist, a value out of range) becomes what notFound
// makes of the worker's message; a token's missing scope HTTP 403 with an
// insufficient_scope challenge; a role's refusal (which cannot happen
// today: every role may read, and all of this reads) an Invalid Request
// error carrying the worker's sentence, since no token lifts it; a
// cancelled call a context error, so that nothing is sent; no worker (or
// database) to serve it an *mcp.UnavailableError, which says to retry;
// everything else an error the front door answers with -32603 and logs.
func translate(err error, op string, notFound func(msg string) error) error {
	st := status.Convert(err)
	switch st.Code() {
	case codes.NotFound, codes.InvalidArgument:
		return notFound(st.Message())
	case codes.PermissionDenied:
		if reason, _ := access.Reason(err); reason == access.ReasonRoleForbids {
			return &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: st.Message(), Data: map[string]string{"reason": reason}}
		}
		return &mcp.ScopeError{Tool: op, Scope: authz.ScopeRead} // all of it reads
	case codes.Canceled:
		return context.Canceled
	case codes.Unauthenticated:
		return &mcp.RevokedError{Reason: st.Message()}
	case codes.Unavailable, codes.DeadlineExceeded:
		return &mcp.UnavailableError{Cause: fmt.Errorf("content: %s: %w", op, err)}
	}
	return fmt.Errorf("content: %s: %w", op, err)
}

// invalidParams is the notFound of prompts and completion: the client
// passed a value that names nothing.
func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "invalid params: " + msg}
}

// enumName returns an API enum's value as the lower-case word the tools
// use, e.g. LANE_BACKLOG → "backlog".
func enumName(v interface{ String() string }, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(v.String(), prefix))
}

// laneName returns a lane's word, e.g. "doing".
func laneName(l taskwirev1.Lane) string { return enumName(l, "LANE_") }

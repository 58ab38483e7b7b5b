package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/audit"
)

// Auditor writes audit events (services/audit.Store is one).
type Auditor interface {
	// RecordAll writes events in one transaction: one commit for however
	// many calls ended together. Events whose tenant does not exist are
	// skipped (there is no log to write to) and counted; any other failure
	// writes none of them.
	RecordAll(ctx context.Context, events []audit.Event) (skipped int, err error)
	// RecordTx writes e in tx, the transaction of the call's own write,
	// so that the write and its row commit together. A tenant that does
	// not exist is a domainerr NotFound.
	RecordTx(ctx context.Context, tx *ent.Tx, e audit.Event) error
}

// MDSessionLabel is the metadata key of the label a client gave its
// session (the front door forwards it from the HTTP header
// Taskwire-Session-Label). It is the client's word, never trusted: the
// audit log keeps at most maxSessionLabel printable characters of it.
const MDSessionLabel = identity.MDSessionLabel

// auditSkipped are named calls the audit log leaves out, because they are
// the machinery of other requests rather than something a member did:
// AccessService.GetAccess is called by every tools/list and returns only
// the caller's own membership. Every other call with a caller is recorded,
// reads included (tools, resources, prompts, completions, admin calls),
// whether it succeeded, failed or was refused. Health checks and
// Config.Unnamed methods (e.g. TokenService.ListRevocations) have no
// caller and are never recorded, nor are calls the identity step refuses
// (no trustworthy caller, or a revoked token). What a front door refuses
// itself (unknown tools, bad arguments, a scope it checks first, rate
// limits) never reaches a worker, so is not in the log either.
var auditSkipped = map[string]bool{
	taskwirev1.AccessService_GetAccess_FullMethodName: true,
}

// errUnaudited answers a call whose audit row could not be written: the
// call may have done its work, but it is not acknowledged without its row.
var errUnaudited = status.Error(codes.Unavailable, "the call could not be recorded in the audit log just now, so its answer is withheld: try again")

// auditCall records each named call, and answers it only once its row is
// in the database. It sits after identity and before scope and role, so
// refusals by those steps are recorded too (outcome "refused");
// requireRole notes the caller's Access for it when it reads one, and the
// Auditor looks up the rest for calls refused before.
//
// A write records its row in its own transaction (store.CommitStep): the
// row commits with the write, so a committed write always has its row,
// even if the process dies before answering, and a rolled-back one has
// none. Every other call (reads, refusals, failures, writes that rolled
// back) hands its event to the worker's audit writer and waits until the
// batch holding it is committed (see auditLog): it costs the call one
// group commit shared with every call that ended meanwhile. If the row
// cannot be written, the call fails with Unavailable instead of being
// answered; if the call's context ends first, it fails with the context's
// error (the row is still written). Nothing is dropped.
func (s *Server) auditCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.audit == nil || s.callerless(info.FullMethod) || auditSkipped[info.FullMethod] {
		return handler(ctx, req)
	}
	c := &auditedCall{log: s.audit, ctx: ctx, req: req, method: info.FullMethod, start: time.Now()}
	ctx = store.WithCommitStep(ctx, c) // also where noteAccess and noteFailure find c
	ended := false
	defer func() {
		if !ended { // the handler panicked; recoverPanic answers Internal
			c.end(status.Error(codes.Internal, "the call failed"))
		}
	}()
	resp, err := handler(ctx, req)
	ended = true
	if aerr := c.end(err); aerr != nil {
		return nil, aerr
	}
	return resp, err
}

// auditedCall is one call auditCall records, and the store.CommitStep of
// its transactions.
type auditedCall struct {
	log    *auditLog
	ctx    context.Context // the call's, as auditCall got it
	req    any
	method string
	start  time.Time

	mu      sync.Mutex
	state   callState
	access  identity.Access // as requireRole read it
	known   bool            // access is set
	failure string          // the redacted message of the call's domain error
	failed  bool            // failure is set
}

type callState int

const (
	callOpen      callState = iota
	callCommitted           // its row committed with one of its writes
	callEnded               // auditCall is done with it
)

// auditedCallOf returns the call auditCall is recording with ctx, nil if
// none.
func auditedCallOf(ctx context.Context) *auditedCall {
	c, _ := store.CommitStepOf(ctx).(*auditedCall)
	return c
}

// Commit is the call's store.CommitStep: the first of its transactions
// to commit writes the call's row (outcome ok) in it. Should the row
// fail, the write rolls back: it never commits unaudited.
func (c *auditedCall) Commit(ctx context.Context, tx *ent.Tx, commit func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != callOpen {
		return commit()
	}
	e := c.event(nil)
	if e.Tenant == "" && e.TenantID == 0 {
		return commit()
	}
	switch err := c.log.auditor.RecordTx(ctx, tx, e); {
	case domainerr.KindOf(err) == domainerr.NotFound:
		return commit() // an operator named a tenant that does not exist: no log to write to
	case err != nil:
		return err
	}
	if err := commit(); err != nil {
		return err
	}
	c.state = callCommitted
	return nil
}

// end records the call that ended with err, unless one of its writes
// committed its row already, and returns an error to answer instead when
// the row could not be written (on a full disk, saying so). A call whose
// write committed is recorded as that write: ok, even should it fail
// afterwards.
func (c *auditedCall) end(err error) error {
	c.mu.Lock()
	recorded := c.state == callCommitted
	c.state = callEnded
	var e audit.Event
	if !recorded {
		e = c.event(err)
	}
	c.mu.Unlock()
	if recorded {
		return nil
	}
	if e.Tenant == "" && e.TenantID == 0 {
		c.log.log.DebugContext(c.ctx, "worker: call not audited: it names no tenant", "method", e.Method)
		return nil
	}
	if rerr := c.log.record(c.ctx, e); rerr != nil {
		if store.DiskFull(rerr) && c.ctx.Err() == nil {
			return access.DiskFull()
		}
		return unrecorded(c.ctx, err)
	}
	return nil
}

// unrecorded is the answer to a call with context ctx that ended with err
// but whose row was not written: the call's own error if ctx ended (which
// ended the wait too: the caller is gone), else an error saying so. The
// write's error does not tell: it holds a deadline of its own when the
// batch ran out of time.
func unrecorded(ctx context.Context, err error) error {
	switch cerr := ctx.Err(); {
	case cerr == nil:
		return errUnaudited
	case err != nil:
		return err
	case errors.Is(cerr, context.Canceled):
		return status.Error(codes.Canceled, "the call was cancelled")
	}
	return status.Error(codes.DeadlineExceeded, "the call ran out of time")
}

// noteAccess tells auditCall, if it is recording this call, whom
// requireRole found.
func noteAccess(ctx context.Context, a identity.Access) {
	if c := auditedCallOf(ctx); c != nil {
		c.mu.Lock()
		c.access, c.known = a, true
		c.mu.Unlock()
	}
}

// noteFailure tells auditCall, if it is recording this call, the
// redacted message (domainerr.Redacted) of the domain error err the call
// failed with: the audit log keeps that, never the message itself, which
// may quote a task's title or what the caller sent.
func noteFailure(ctx context.Context, err error) {
	if c := auditedCallOf(ctx); c != nil {
		c.mu.Lock()
		c.failure, c.failed = domainerr.Redacted(err), true
		c.mu.Unlock()
	}
}

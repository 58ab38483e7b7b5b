package operations

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/operation"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
)

// The causes an operation's context is cancelled with.
var (
	errCancelled = errors.New("operations: cancelled by the client")
	errStopping  = errors.New("operations: the worker is stopping")
)

// Sentences of operations that did not complete.
const (
	cancelledMessage = "Cancelled: nothing of the call was saved."
	lostMessage      = "The worker running this call stopped before it finished, and nothing of it was saved: run the call again."
)

// launch runs op's call in the background on runner, renewing its lease
// while it runs, and records how it ended.
func (s *Service) launch(op *ent.Operation, c caller, runner grpc.ClientConnInterface, md metadata.MD, in, out proto.Message) {
	ctx, cancel := context.WithCancelCause(context.Background())
	s.mu.Lock()
	s.running[op.Key] = cancel
	s.wg.Add(1)
	if s.stopped { // Stop came between start and here
		cancel(errStopping)
	}
	s.mu.Unlock()
	db := tenantscope.NewContext(context.Background(), c.tenantID)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, op.Key)
			s.mu.Unlock()
			cancel(nil)
		}()
		stop := s.heartbeat(ctx, db, op.ID, cancel)
		callCtx, done := context.WithTimeout(metadata.NewOutgoingContext(ctx, md), s.cfg.TTL)
		err := runner.Invoke(callCtx, op.Method, in, out)
		done()
		stop()
		if err := s.finish(db, op.ID, in, out, err, context.Cause(ctx)); err != nil {
			s.cfg.Logger.Error("operations: how an operation ended could not be recorded; it will read as failed when its lease lapses", "operation", op.ID, "error", err)
		}
	}()
}

// heartbeat renews the lease of operation id every Lease/5 until stop,
// and cancels the call when a client asked another worker to cancel it.
func (s *Service) heartbeat(ctx, db context.Context, id int, cancel context.CancelCauseFunc) (stop func()) {
	ctx, end := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.cfg.Lease / 5)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			asked, err := s.renew(db, id)
			if err != nil {
				s.cfg.Logger.Warn("operations: a lease could not be renewed", "operation", id, "error", err)
			}
			if asked {
				cancel(errCancelled)
			}
		}
	}()
	return func() { end(); <-done }
}

// renew extends the lease of working operation id and reports whether a
// client asked to cancel it.
func (s *Service) renew(ctx context.Context, id int) (cancelAsked bool, err error) {
	err = s.cfg.Client.Operation.Update().
		Where(operation.ID(id), operation.StateEQ(operation.StateWorking)).
		SetLeaseUntil(s.now().Add(s.cfg.Lease)).Exec(ctx)
	if err != nil {
		return false, err
	}
	op, err := s.cfg.Client.Operation.Get(ctx, id)
	if err != nil {
		return false, err
	}
	return op.CancelRequested, nil
}

// finish records how operation id ended: with the call's response or
// error (completed), cancelled by the client, or failed when this worker
// stopped it.
func (s *Service) finish(ctx context.Context, id int, in, out proto.Message, callErr, cause error) error {
	u := s.cfg.Client.Operation.Update().
		Where(operation.ID(id), operation.StateEQ(operation.StateWorking)).
		SetUpdatedAt(s.now())
	switch {
	case callErr == nil && asksInput(out):
		resp, err := proto.Marshal(out)
		if err != nil {
			return err
		}
		req, err := proto.Marshal(in)
		if err != nil {
			return err
		}
		u.SetState(operation.StateInputRequired).SetResponse(resp).SetRequest(req).
			ClearInputResponses().SetStatusMessage(inputMessage)
	case callErr == nil:
		resp, err := proto.Marshal(out)
		if err != nil {
			return err
		}
		u.SetState(operation.StateCompleted).SetResponse(resp).SetStatusMessage("The call is done.")
	case errors.Is(cause, errCancelled):
		u.SetState(operation.StateCancelled).SetStatusMessage(cancelledMessage)
	case errors.Is(cause, errStopping):
		st, err := statusBytes(status.New(codes.Unavailable, lostMessage))
		if err != nil {
			return err
		}
		u.SetState(operation.StateFailed).SetError(st).SetStatusMessage(lostMessage)
	default:
		st, err := statusBytes(status.Convert(callErr))
		if err != nil {
			return err
		}
		u.SetState(operation.StateCompleted).SetError(st).SetStatusMessage("The call returned an error.")
	}
	return u.Exec(ctx)
}

// inputMessage is the status message of an operation waiting for the
// client's input.
const inputMessage = "The call waits for the client's input."

// asksInput tells whether response out asks the client for input: it
// has a taskwire.mcp.v1.InputRequired field set.
func asksInput(out proto.Message) bool {
	m := out.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() != nil && fd.Message().FullName() == "taskwire.mcp.v1.InputRequired" && m.Has(fd) {
			return true
		}
	}
	return false
}

// statusBytes is st serialized as a google.rpc.Status.
func statusBytes(st *status.Status) ([]byte, error) {
	return proto.Marshal(st.Proto())
}

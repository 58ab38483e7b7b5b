package worker

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/access"
)

// translateErrors turns what a handler returns into a gRPC status.
func (s *Server) translateErrors(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err == nil {
		return resp, nil
	}
	return nil, s.toStatus(ctx, info.FullMethod, err)
}

// kindCodes maps each domain kind to its gRPC code. domainerr has one
// Conflict kind for "changed meanwhile" and "already exists", so it maps to
// one code, FailedPrecondition: the call cannot succeed as asked and the
// caller must read again before trying anything else. (Should a separate
// version-conflict kind appear, Aborted is its code.) Internal is absent:
// it goes through internal, which hides the message; so is Exhausted, a
// ResourceExhausted marked as a quota's (access.QuotaExceeded), which the
// front door tells from gRPC's own.
var kindCodes = map[domainerr.Kind]codes.Code{
	domainerr.Invalid:          codes.InvalidArgument,
	domainerr.NotFound:         codes.NotFound,
	domainerr.Conflict:         codes.FailedPrecondition,
	domainerr.PermissionDenied: codes.PermissionDenied,
	domainerr.Unauthenticated:  codes.Unauthenticated,
	domainerr.Unavailable:      codes.Unavailable,
}

// toStatus is the worker's one error translation. A database that cannot
// be reached (store.Unreachable) is Unavailable, an outage the breaker
// logs once, not a failure of this call; domain errors keep their
// caller-facing message; cancellation keeps its code; a status a handler
// chose passes through; anything else is Internal with a neutral message
// and a ref, and is logged in full under that ref.
func (s *Server) toStatus(ctx context.Context, method string, err error) error {
	if domainerr.KindOf(err) == domainerr.Internal && wrappedStatus(err) == nil {
		if st := s.dbFailure(ctx, err); st != nil {
			return st
		}
	}
	var de *domainerr.Error
	switch {
	case store.DiskFull(err): // the store logs it, once while the disk is full
		return access.DiskFull()
	case errors.As(err, &de):
		if de.Kind == domainerr.Exhausted {
			noteFailure(ctx, err)
			return access.QuotaExceeded(de.Msg)
		}
		if code, ok := kindCodes[de.Kind]; ok {
			noteFailure(ctx, err)
			return status.Error(code, de.Msg)
		}
		return s.internal(ctx, method, err)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "the call was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "the call ran out of time")
	}
	if st := wrappedStatus(err); st != nil {
		return st.Err()
	}
	if ctx.Err() != nil {
		// The call ended first; the error is most likely its consequence.
		return s.toStatus(ctx, method, ctx.Err())
	}
	return s.internal(ctx, method, err)
}

// internal logs err in full under a short ref and returns an Internal status
// that shows only the ref. The ref is a hash of the error text, so the same
// failure always has the same ref and one grep finds every occurrence.
func (s *Server) internal(ctx context.Context, method string, err error, attrs ...slog.Attr) error {
	h := fnv.New32a()
	h.Write([]byte(method + "\x00" + err.Error()))
	ref := fmt.Sprintf("%08x", h.Sum32())
	attrs = append(attrs, slog.String("ref", ref), slog.String("method", method), slog.String("err", err.Error()))
	s.log.LogAttrs(ctx, slog.LevelError, "internal error", attrs...)
	return status.Errorf(codes.Internal, "internal error (ref %s)", ref)
}

// wrappedStatus returns the status in err's chain, if any, as its handler
// made it: without the text of errors wrapping it, which may say more than
// a caller should see.
func wrappedStatus(err error) *status.Status {
	var gs interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &gs) {
		return nil
	}
	if st := gs.GRPCStatus(); st != nil && st.Code() != codes.OK {
		return st
	}
	return nil
}

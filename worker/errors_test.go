package worker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/services/access"
)

var internalMsg = regexp.MustCompile(`^internal error \(ref ([0-9a-f]{8})\)$`)

func TestErrorTranslation(t *testing.T) {
	w := startWorker(t, nil)
	tests := []struct {
		ref      string
		err      error
		code     codes.Code
		msg      string // "" when the message must be the neutral internal one
		internal bool
	}{
		{"invalid", domainerr.New(domainerr.Invalid, "title is empty; give a title"), codes.InvalidArgument, "title is empty; give a title", false},
		{"notfound", domainerr.New(domainerr.NotFound, "no task T-9"), codes.NotFound, "no task T-9", false},
		{"conflict", domainerr.Wrap(domainerr.Conflict, errors.New("version 3 != 4"), "T-1 changed; read it again"), codes.FailedPrecondition, "T-1 changed; read it again", false},
		{"denied", domainerr.New(domainerr.PermissionDenied, "viewers cannot edit"), codes.PermissionDenied, "viewers cannot edit", false},
		{"unauth", domainerr.New(domainerr.Unauthenticated, "member was removed"), codes.Unauthenticated, "member was removed", false},
		{"unavailable", domainerr.Wrap(domainerr.Unavailable, errors.New("dial tcp: refused"), "database is down; try again"), codes.Unavailable, "database is down; try again", false},
		{"quota", domainerr.New(domainerr.Exhausted, "tenant acme holds 50000 tasks, its quota"), codes.ResourceExhausted, "tenant acme holds 50000 tasks, its quota", false},
		{"wrapped kind", fmt.Errorf("board: %w", domainerr.New(domainerr.NotFound, "no board x")), codes.NotFound, "no board x", false},
		{"domain internal", domainerr.Wrap(domainerr.Internal, errors.New("secret sql"), "oops"), codes.Internal, "", true},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), codes.Canceled, "the call was cancelled", false},
		{"deadline", context.DeadlineExceeded, codes.DeadlineExceeded, "the call ran out of time", false},
		{"status", status.Error(codes.ResourceExhausted, "slow down"), codes.ResourceExhausted, "slow down", false},
		{"wrapped status", fmt.Errorf("secret detail: %w", status.Error(codes.AlreadyExists, "exists")), codes.AlreadyExists, "exists", false},
		{"plain", errors.New("pq: password authentication failed for user secret"), codes.Internal, "", true},
	}
	for _, tc := range tests {
		w.board.errs[tc.ref] = tc.err
	}
	for _, tc := range tests {
		_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: tc.ref})
		st := status.Convert(err)
		if st.Code() != tc.code {
			t.Errorf("%s: code = %v, want %v", tc.ref, st.Code(), tc.code)
		}
		if quota := tc.ref == "quota"; access.IsQuotaExceeded(err) != quota {
			t.Errorf("%s: marked as a quota's = %v, want %v", tc.ref, !quota, quota)
		}
		if !tc.internal {
			if st.Message() != tc.msg {
				t.Errorf("%s: message = %q, want %q", tc.ref, st.Message(), tc.msg)
			}
			continue
		}
		checkInternal(t, w, tc.ref, st, tc.err.Error())
	}
}

// checkInternal checks that st shows only a ref and that the log holds the
// full error under that ref.
func checkInternal(t *testing.T, w *testWorker, name string, st *status.Status, full string) {
	t.Helper()
	m := internalMsg.FindStringSubmatch(st.Message())
	if m == nil {
		t.Errorf("%s: message = %q, want \"internal error (ref <8 hex>)\"", name, st.Message())
		return
	}
	recs := w.logs.find("internal error", map[string]string{"ref": m[1]})
	if len(recs) != 1 || !strings.Contains(recs[0].Attrs["err"], full) {
		t.Errorf("%s: log records for ref %s = %v, want one with err %q", name, m[1], recs, full)
	}
}

func TestPanicBecomesInternal(t *testing.T) {
	w := startWorker(t, nil)
	_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "panic"})
	st := status.Convert(err)
	if st.Code() != codes.Internal {
		t.Fatalf("code = %v, want Internal", st.Code())
	}
	checkInternal(t, w, "panic", st, "panic: boom")
	m := internalMsg.FindStringSubmatch(st.Message())
	if m != nil {
		rec := w.logs.find("internal error", map[string]string{"ref": m[1]})
		if len(rec) == 1 && !strings.Contains(rec[0].Attrs["stack"], "GetTask") {
			t.Errorf("logged stack does not show the panicking handler:\n%s", rec[0].Attrs["stack"])
		}
	}
	want := map[string]string{"method": taskwirev1.BoardService_GetTask_FullMethodName, "code": "Internal"}
	poll.Until(t, 10*time.Second, "the panicked call's record", func() bool { return len(w.logs.find("rpc", want)) == 1 })
	if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("call after a panic = %v, want the server still serving", err)
	}
}

func TestToStatusUsesContext(t *testing.T) {
	w := startWorker(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A driver error caused by the cancellation carries no sign of it.
	err := w.srv.toStatus(ctx, "/m", errors.New("driver: bad connection"))
	if got := status.Code(err); got != codes.Canceled {
		t.Errorf("toStatus(cancelled ctx, plain error) code = %v, want Canceled", got)
	}
	wrappedOK := fmt.Errorf("x: %w", okStatusErr{})
	if got := status.Code(w.srv.toStatus(context.Background(), "/m", wrappedOK)); got != codes.Internal {
		t.Errorf("toStatus(error wrapping an OK status) code = %v, want Internal", got)
	}
}

// okStatusErr is an error claiming an OK status, which must not turn a
// failure into a success.
type okStatusErr struct{}

func (okStatusErr) Error() string              { return "ok?" }
func (okStatusErr) GRPCStatus() *status.Status { return status.New(codes.OK, "") }

package worker

import (
	"fmt"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/services/access"
)

// TestDiskFull: a call that failed for a full disk, in its own write or
// in its audit row's, is told so in a sentence (RESOURCE_EXHAUSTED marked
// DISK_FULL, so the front door shows it), not as an internal error; the
// audit writer does not log each failed batch (the store logs the
// episode) and writes again as soon as the disk has room.
func TestDiskFull(t *testing.T) {
	full := fmt.Errorf("audit: insert: %w", syscall.ENOSPC)
	a := &fakeAuditor{err: full}
	w := startWorker(t, func(c *Config) { c.Auditor = a })
	w.board.errs["T-7"] = domainerr.Wrap(domainerr.Internal, fmt.Errorf("store: commit: %w", syscall.ENOSPC), "internal error")
	for _, ref := range []string{"T-1", "T-7"} {
		_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: ref})
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || st.Message() != access.DiskFullSentence || !access.IsDiskFull(err) {
			t.Errorf("GetTask(%s) on a full disk = %v, want RESOURCE_EXHAUSTED marked DISK_FULL: %s", ref, err, access.DiskFullSentence)
		}
	}
	if n := len(w.logs.find("worker: audit events not recorded; their calls fail", nil)); n != 0 {
		t.Errorf("%d warnings about failed audit batches on a full disk, want 0", n)
	}
	if n := len(w.logs.find("internal error", nil)); n != 0 {
		t.Errorf("%d internal errors logged for a full disk, want 0", n)
	}
	a.mu.Lock()
	a.err = nil
	a.mu.Unlock()
	if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("GetTask once the disk has room = %v, want success", err)
	}
}

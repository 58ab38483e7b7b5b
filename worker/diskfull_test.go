package worker

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/audit"
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
	for _, r := range w.logs.find("worker: audit events not recorded; their calls fail", nil) {
		if r.Level >= slog.LevelWarn { // at debug it is no warning
			t.Errorf("a failed audit batch on a full disk logged at %v, want debug", r.Level)
		}
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

// fakeDisk is a Disk whose fullness the test sets.
type fakeDisk struct{ full atomic.Bool }

func (d *fakeDisk) Full() bool { return d.full.Load() }

// TestRefuseWritesOnFullDisk: while the disk is full, a write is answered
// with the sentence before it touches the database (nothing of it is
// written) and its refusal is audited; reads are served; once the disk
// has room, writes are served again.
func TestRefuseWritesOnFullDisk(t *testing.T) {
	db := storetest.Open(t, storetest.SQLite)
	disk := &fakeDisk{}
	w, res, a := startAuditWorker(t, func(c *Config) { c.Disk = disk })
	w.board.db = db
	res.setRole(7, "member")
	write := asCaller("read", "comment", "write")
	exists := tenantExists(t, db)

	disk.full.Store(true)
	_, err := w.client.CreateTask(write, &taskwirev1.CreateTaskRequest{Title: "refused"})
	if !access.IsDiskFull(err) || status.Convert(err).Message() != access.DiskFullSentence || exists("refused") {
		t.Errorf("CreateTask on a full disk = %v (written: %v), want the sentence and nothing written", err, exists("refused"))
	}
	if _, err := w.client.AddComment(write, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "b"}); !access.IsDiskFull(err) {
		t.Errorf("AddComment on a full disk = %v, want the sentence", err)
	}
	if _, err := w.client.GetTask(write, &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("GetTask on a full disk = %v, want it served", err)
	}
	if got := a.recorded(); len(got) != 3 || got[0].Outcome == audit.OutcomeOK || got[2].Outcome != audit.OutcomeOK {
		t.Errorf("audited on a full disk: %+v, want the two refusals and the read", got)
	}

	disk.full.Store(false)
	if _, err := w.client.CreateTask(write, &taskwirev1.CreateTaskRequest{Title: "written"}); err != nil || !exists("written") {
		t.Errorf("CreateTask once the disk has room = %v (written: %v), want it written", err, exists("written"))
	}
}

// TestWrites: which methods the full disk refuses.
func TestWrites(t *testing.T) {
	for method, want := range map[string]bool{
		taskwirev1.BoardService_CreateTask_FullMethodName:         true,
		taskwirev1.BoardService_AddComment_FullMethodName:         true,
		taskwirev1.WorkService_NextWork_FullMethodName:            true,
		taskwirev1.BoardService_GetTask_FullMethodName:            false,
		taskwirev1.BoardService_ListTasks_FullMethodName:          false,
		taskwirev1.BoardService_GetBoardContext_FullMethodName:    false,
		taskwirev1.BoardService_CompleteRefs_FullMethodName:       false,
		taskwirev1.AccessService_Whoami_FullMethodName:            false,
		adminv1.AdminService_CreateTenant_FullMethodName:          true,
		adminv1.AdminService_RevokeToken_FullMethodName:           true,
		adminv1.AdminService_ListTenants_FullMethodName:           false,
		taskwirev1.SessionService_SignIn_FullMethodName:           true,
		taskwirev1.SessionService_CheckSession_FullMethodName:     false,
		taskwirev1.DecisionService_RequestDecision_FullMethodName: true,
	} {
		if got := writes(methods.Must(method)); got != want {
			t.Errorf("writes(%s) = %v, want %v", method, got, want)
		}
	}
}

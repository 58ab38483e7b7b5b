package console

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// adminWorker is fakeWorker for the boards and audit pages: the session's
// member has role, and it serves the audit log (events of its own making)
// and the admin API's ArchiveBoard.
type adminWorker struct {
	*fakeWorker
	taskwirev1.UnimplementedAuditServiceServer

	role     taskwirev1.MemberRole
	name     string // the board's name
	events   int    // how many events the audit log holds
	failFrom int    // when set, reading from this event on fails
	audits   []*taskwirev1.ListAuditRequest
	archived bool
	version  int32 // the board's version, bumped by each save
	kinds    []taskwirev1.TaskKind
}

func newAdminWorker(role taskwirev1.MemberRole) *adminWorker {
	return &adminWorker{fakeWorker: newFakeWorker(), role: role, name: "Main board", version: 1,
		kinds: []taskwirev1.TaskKind{taskwirev1.TaskKind_TASK_KIND_TASK, taskwirev1.TaskKind_TASK_KIND_BUG}}
}

// env is a console in front of w.
func (w *adminWorker) env(t *testing.T) *env {
	t.Helper()
	return newEnv(t, func(c *Config) { c.Conn = w.start(t) })
}

func (w *adminWorker) start(t *testing.T) *grpc.ClientConn {
	t.Helper()
	return serveFake(t, func(srv *grpc.Server) {
		taskwirev1.RegisterSessionServiceServer(srv, w)
		taskwirev1.RegisterBoardServiceServer(srv, w)
		taskwirev1.RegisterAuditServiceServer(srv, w)
		adminv1.RegisterAdminServiceServer(srv, archiveAdmin{w: w})
	})
}

func (w *adminWorker) CheckSession(ctx context.Context, req *taskwirev1.CheckSessionRequest) (*taskwirev1.CheckSessionResponse, error) {
	resp, err := w.fakeWorker.CheckSession(ctx, req)
	if err != nil {
		return nil, err
	}
	m := proto.Clone(membership).(*taskwirev1.Membership)
	m.Role = w.role
	resp.Memberships = []*taskwirev1.Membership{m}
	return resp, nil
}

func (w *adminWorker) GetBoard(ctx context.Context, req *taskwirev1.GetBoardRequest) (*taskwirev1.GetBoardResponse, error) {
	b, err := w.fakeWorker.GetBoard(ctx, req)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b.Board.Name, b.Board.IsDefault, b.Board.Archived = w.name, false, w.archived
	b.Board.Version, b.Board.Kinds, b.Kinds = w.version, w.kinds, w.kinds
	return b, nil
}

func (w *adminWorker) GetContext(context.Context, *taskwirev1.GetContextRequest) (*taskwirev1.GetContextResponse, error) {
	return &taskwirev1.GetContextResponse{Rules: "Be kind.", Items: []*taskwirev1.ContextNote{
		{Id: 1, Board: "main", Body: hostileTitle, Author: "bot"},
	}}, nil
}

func (w *adminWorker) UpdateBoard(_ context.Context, req *taskwirev1.UpdateBoardRequest) (*taskwirev1.UpdateBoardResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is empty: give the board a display name.")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if req.GetExpectedVersion() != w.version {
		return nil, status.Errorf(codes.FailedPrecondition, "board main changed since version %d (now %d).", req.GetExpectedVersion(), w.version)
	}
	w.name, w.kinds = req.GetName(), req.GetKinds()
	w.version++
	return &taskwirev1.UpdateBoardResponse{}, nil
}

// archiveAdmin is the admin API of an adminWorker (apart, since its
// methods' names are the board service's).
type archiveAdmin struct {
	adminv1.UnimplementedAdminServiceServer
	w *adminWorker
}

func (a archiveAdmin) ArchiveBoard(_ context.Context, req *adminv1.ArchiveBoardRequest) (*adminv1.ArchiveBoardResponse, error) {
	a.w.mu.Lock()
	defer a.w.mu.Unlock()
	a.w.archived = req.GetArchived()
	return &adminv1.ArchiveBoardResponse{Board: &adminv1.Board{Slug: req.GetBoard()}}, nil
}

// ListAudit serves w.events events, newest first, 1 second apart; event
// i's error is a formula, as a hostile caller might make it.
func (w *adminWorker) ListAudit(ctx context.Context, req *taskwirev1.ListAuditRequest) (*taskwirev1.ListAuditResponse, error) {
	w.record(ctx)
	if w.role == taskwirev1.MemberRole_MEMBER_ROLE_VIEWER {
		return nil, status.Error(codes.PermissionDenied, "Only owners and admins may list the audit log (audit_list).")
	}
	w.mu.Lock()
	w.audits = append(w.audits, req)
	w.mu.Unlock()
	from, _ := strconv.Atoi(req.GetCursor())
	if w.failFrom > 0 && from >= w.failFrom {
		return nil, status.Error(codes.Unavailable, "The audit log cannot be read now.")
	}
	resp := &taskwirev1.ListAuditResponse{}
	to := min(from+int(req.GetLimit()), w.events)
	start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for i := from; i < to; i++ {
		resp.Items = append(resp.Items, &taskwirev1.AuditEvent{
			OccurredAt: timestamppb.New(start.Add(-time.Duration(i) * time.Second)), Member: "bot",
			Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "ada", Tool: "tasks_move",
			Targets: []string{"ref=T-1"}, Outcome: "refused", Error: fmt.Sprintf("=HYPERLINK(%d)", i), DurationMs: 3,
		})
	}
	if to < w.events {
		resp.NextCursor = strconv.Itoa(to)
	}
	return resp, nil
}

package console

import (
	"context"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// fakeWorker serves the services the console calls, from memory, and
// records the caller metadata of every board and decision call (admin
// calls: fakeAdmin).
type fakeWorker struct {
	taskwirev1.UnimplementedSessionServiceServer
	taskwirev1.UnimplementedBoardServiceServer
	taskwirev1.UnimplementedDecisionServiceServer
	taskwirev1.UnimplementedWorkServiceServer

	mu        sync.Mutex
	sessions  map[string]bool // live cookies
	hasPass   bool
	tasks     map[string]*taskwirev1.Task
	comments  []*taskwirev1.Comment
	decision  *taskwirev1.Decision
	moves     []*taskwirev1.MoveTaskRequest
	callers   []metadata.MD
	nextLogin int
	member    *taskwirev1.Membership // what the session is a member as
	admin     *fakeAdmin
	others    []*taskwirev1.Membership // the person's tenants beside acme
	oauth     *fakeOAuth
}

const (
	hostileTitle = `<script>alert(1)</script>`
	goodPassword = "correct horse battery"
	fakeLink     = "LINK-SECRET"
)

func newFakeWorker() *fakeWorker {
	return &fakeWorker{
		sessions: map[string]bool{},
		hasPass:  true,
		member:   membership,
		admin:    newFakeAdmin(),
		oauth:    newFakeOAuth(),
		tasks: map[string]*taskwirev1.Task{
			"T-1": {Ref: "T-1", Board: "main", Title: hostileTitle, Lane: taskwirev1.Lane_LANE_BACKLOG, Version: 1,
				Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Assignees: []string{"ada", "bot"},
				Note: "Run javascript:alert(1) or read https://example.com/doc?a=1&b=2 now."},
			"T-2": {Ref: "T-2", Board: "main", Title: "Ship it", Lane: taskwirev1.Lane_LANE_DOING, Version: 4,
				Kind: taskwirev1.TaskKind_TASK_KIND_TASK, Size: taskwirev1.TaskSize_TASK_SIZE_M, Flagged: true, FlagReason: "waiting"},
		},
		decision: &taskwirev1.Decision{Id: "dec1", Tool: "tasks_delete", Question: `Delete task T-2 "Ship it"?`,
			ArgumentsJson: `{"ref":"T-2"}`, State: taskwirev1.DecisionState_DECISION_STATE_PENDING,
			RequestedBy: "bot", RequestedByName: "Helper Bot", Sponsor: "ada"},
	}
}

// start serves w on a bufconn and returns a client connection to it.
func (w *fakeWorker) start(t *testing.T) *grpc.ClientConn {
	t.Helper()
	return serveFake(t, func(srv *grpc.Server) {
		taskwirev1.RegisterSessionServiceServer(srv, w)
		taskwirev1.RegisterBoardServiceServer(srv, w)
		taskwirev1.RegisterDecisionServiceServer(srv, w)
		taskwirev1.RegisterWorkServiceServer(srv, w)
		adminv1.RegisterAdminServiceServer(srv, w.admin)
		taskwirev1.RegisterOAuthServiceServer(srv, w.oauth)
	})
}

// serveFake serves the services register registers on a bufconn and
// returns a client connection to them.
func serveFake(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	ln := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	register(srv)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// record notes the caller metadata of a board or decision call.
func (w *fakeWorker) record(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	w.mu.Lock()
	w.callers = append(w.callers, md)
	w.mu.Unlock()
}

func (w *fakeWorker) lastCaller() metadata.MD {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.callers) == 0 {
		return nil
	}
	return w.callers[len(w.callers)-1]
}

var membership = &taskwirev1.Membership{Tenant: "acme", TenantName: "Acme & Co", MemberId: 7, Handle: "ada", Role: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER}

func (w *fakeWorker) SignIn(_ context.Context, req *taskwirev1.SignInRequest) (*taskwirev1.SignInResponse, error) {
	switch m := req.GetMethod().(type) {
	case *taskwirev1.SignInRequest_Password:
		if m.Password.GetEmail() != "ada@example.com" || m.Password.GetPassword() != goodPassword {
			return nil, status.Error(codes.Unauthenticated, "The email or the password is wrong.")
		}
	case *taskwirev1.SignInRequest_Link:
		if m.Link != fakeLink {
			return nil, status.Error(codes.Unauthenticated, "This sign-in link was used already or has expired.")
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextLogin++
	cookie := "sid" + string(rune('0'+w.nextLogin)) + ".secret"
	w.sessions[cookie] = true
	return &taskwirev1.SignInResponse{Cookie: cookie, Session: &taskwirev1.Session{Id: sessionID(cookie)},
		Account: &taskwirev1.Account{Id: 1, Email: "ada@example.com", HasPassword: w.hasPass}}, nil
}

func (w *fakeWorker) CheckSession(_ context.Context, req *taskwirev1.CheckSessionRequest) (*taskwirev1.CheckSessionResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sessions[req.GetCookie()] {
		return nil, status.Error(codes.Unauthenticated, "You were signed out.")
	}
	return &taskwirev1.CheckSessionResponse{Session: &taskwirev1.Session{Id: sessionID(req.GetCookie())},
		Account:     &taskwirev1.Account{Id: 1, Email: "ada@example.com", HasPassword: w.hasPass},
		Memberships: append([]*taskwirev1.Membership{w.member}, w.others...)}, nil
}

func (w *fakeWorker) SignOut(_ context.Context, req *taskwirev1.SignOutRequest) (*taskwirev1.SignOutResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if req.GetEverywhere() {
		n := len(w.sessions)
		w.sessions = map[string]bool{}
		return &taskwirev1.SignOutResponse{Ended: int32(n)}, nil
	}
	delete(w.sessions, req.GetCookie())
	return &taskwirev1.SignOutResponse{Ended: 1}, nil
}

func (w *fakeWorker) SetPassword(_ context.Context, req *taskwirev1.SetPasswordRequest) (*taskwirev1.SetPasswordResponse, error) {
	if len(req.GetNewPassword()) < 12 {
		return nil, status.Error(codes.InvalidArgument, "A password needs at least 12 characters.")
	}
	w.mu.Lock()
	w.hasPass = true
	w.mu.Unlock()
	return &taskwirev1.SetPasswordResponse{Account: &taskwirev1.Account{Email: req.GetEmail(), HasPassword: true}}, nil
}

func (w *fakeWorker) GetBoard(ctx context.Context, _ *taskwirev1.GetBoardRequest) (*taskwirev1.GetBoardResponse, error) {
	w.record(ctx)
	return &taskwirev1.GetBoardResponse{
		Board: &taskwirev1.Board{Slug: "main", Name: "Main board", IsDefault: true},
		Lanes: []*taskwirev1.LaneInfo{
			{Lane: taskwirev1.Lane_LANE_BACKLOG, Count: 1}, {Lane: taskwirev1.Lane_LANE_NEXT},
			{Lane: taskwirev1.Lane_LANE_DOING, WipLimit: 1, Count: 2}, {Lane: taskwirev1.Lane_LANE_DONE},
		},
		Labels: []*taskwirev1.Tally{{Value: "backend", Count: 1}},
	}, nil
}

func (w *fakeWorker) ListBoards(ctx context.Context, _ *taskwirev1.ListBoardsRequest) (*taskwirev1.ListBoardsResponse, error) {
	w.record(ctx)
	return &taskwirev1.ListBoardsResponse{Items: []*taskwirev1.Board{
		{Slug: "main", Name: "Main board", IsDefault: true}, {Slug: "ops", Name: "Ops"},
	}}, nil
}

func (w *fakeWorker) ListMembers(ctx context.Context, _ *taskwirev1.ListMembersRequest) (*taskwirev1.ListMembersResponse, error) {
	w.record(ctx)
	return &taskwirev1.ListMembersResponse{Items: []*taskwirev1.Member{
		{Handle: "ada", Kind: taskwirev1.MemberKind_MEMBER_KIND_HUMAN},
		{Handle: "bot", Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Sponsor: "ada"},
	}}, nil
}

func (w *fakeWorker) ListTasks(ctx context.Context, req *taskwirev1.ListTasksRequest) (*taskwirev1.ListTasksResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*taskwirev1.Task
	for _, ref := range []string{"T-1", "T-2"} {
		t := w.tasks[ref]
		if req.Flagged != nil && t.GetFlagged() != req.GetFlagged() {
			continue
		}
		out = append(out, t)
	}
	return &taskwirev1.ListTasksResponse{Items: out}, nil
}

func (w *fakeWorker) GetTask(ctx context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.tasks[req.GetRef()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "There is no task %s.", req.GetRef())
	}
	return &taskwirev1.GetTaskResponse{Task: t, Comments: w.comments, CommentCount: int32(len(w.comments)),
		History: []*taskwirev1.HistoryEntry{{Action: "task.created", Actor: "bot",
			Detail: []*taskwirev1.Detail{{Name: "lane", Value: "backlog"}}}}}, nil
}

func (w *fakeWorker) MoveTask(ctx context.Context, req *taskwirev1.MoveTaskRequest) (*taskwirev1.MoveTaskResponse, error) {
	w.record(ctx)
	if c, _ := identityOf(ctx); c.Member != 7 {
		return nil, status.Error(codes.Internal, "no member")
	}
	if req.GetRef() == "T-2" {
		return nil, status.Error(codes.PermissionDenied, "A viewer may not move tasks.")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.moves = append(w.moves, req)
	return &taskwirev1.MoveTaskResponse{Task: w.tasks[req.GetRef()]}, nil
}

func (w *fakeWorker) UpdateTask(ctx context.Context, req *taskwirev1.UpdateTaskRequest) (*taskwirev1.UpdateTaskResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.tasks[req.GetRef()]
	if req.GetExpectedVersion() != t.GetVersion() {
		return nil, status.Errorf(codes.FailedPrecondition, "Task %s is at version %d, not %d.", t.GetRef(), t.GetVersion(), req.GetExpectedVersion())
	}
	t.Title, t.Note, t.Version = req.GetTitle(), req.GetNote(), t.Version+1
	return &taskwirev1.UpdateTaskResponse{Task: t}, nil
}

func (w *fakeWorker) AddComment(ctx context.Context, req *taskwirev1.AddCommentRequest) (*taskwirev1.AddCommentResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	c := &taskwirev1.Comment{Id: int32(len(w.comments) + 1), Task: req.GetRef(), Author: "ada", Body: req.GetBody()}
	w.comments = append(w.comments, c)
	return &taskwirev1.AddCommentResponse{Comment: c}, nil
}

func (w *fakeWorker) ListDecisions(ctx context.Context, _ *taskwirev1.ListDecisionsRequest) (*taskwirev1.ListDecisionsResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	done := &taskwirev1.Decision{Id: "old", Question: "Restore T-9?", State: taskwirev1.DecisionState_DECISION_STATE_DECLINED}
	return &taskwirev1.ListDecisionsResponse{Decisions: []*taskwirev1.Decision{done, w.decision}}, nil
}

func (w *fakeWorker) GetDecision(ctx context.Context, req *taskwirev1.GetDecisionRequest) (*taskwirev1.GetDecisionResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if req.GetId() != w.decision.GetId() {
		return nil, status.Error(codes.NotFound, "There is no such decision.")
	}
	return &taskwirev1.GetDecisionResponse{Decision: w.decision}, nil
}

func (w *fakeWorker) Decide(ctx context.Context, req *taskwirev1.DecideRequest) (*taskwirev1.DecideResponse, error) {
	w.record(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.decision.GetState() != taskwirev1.DecisionState_DECISION_STATE_PENDING {
		return nil, status.Error(codes.FailedPrecondition, "This decision was already made.")
	}
	w.decision.State, w.decision.DecidedBy, w.decision.Reason = taskwirev1.DecisionState_DECISION_STATE_DECLINED, "ada", req.GetReason()
	if req.GetApprove() {
		w.decision.State = taskwirev1.DecisionState_DECISION_STATE_APPROVED
	}
	return &taskwirev1.DecideResponse{Decision: w.decision}, nil
}

// identityOf reads the member the console named, whatever the kind (the
// identity package of this tree may not know the session kind yet).
func identityOf(ctx context.Context) (identity.Caller, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	md = md.Copy()
	md.Delete(identity.MDKind)
	return identity.FromIncoming(metadata.NewIncomingContext(ctx, md))
}

func (w *fakeWorker) ListWorkToApprove(ctx context.Context, _ *taskwirev1.ListWorkToApproveRequest) (*taskwirev1.ListWorkToApproveResponse, error) {
	w.record(ctx)
	return &taskwirev1.ListWorkToApproveResponse{Items: []*taskwirev1.WorkToApprove{{
		Title: "Ship it", Board: "main",
		Work: &taskwirev1.Work{Ref: "T-2", State: "exhausted", Claims: 3, MaxClaims: 3, LastReleaseReason: "Needs a person."},
	}}}, nil
}

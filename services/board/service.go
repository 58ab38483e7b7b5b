// Package board is the task board: the BoardService RPCs over ent. Every
// call acts for the verified caller in its context (identity.FromContext),
// inside that caller's tenant only; every write is one transaction that also
// records who did it in the activity log.
package board

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client // required, e.g. from store.Open
	// CursorKey seals the cursors of every list (see package
	// cursor); every worker of a deployment must share it, or a page's
	// cursor is refused by the next worker. Nil means a random key: cursors
	// only this Service accepts.
	CursorKey []byte
	// Quota bounds the tasks of each tenant (Tasks); zero: no bound.
	Quota quota.Limits
	// Events tells listen streams that the tenant's boards (its
	// resources) changed: a board created or archived. Nil: nobody is
	// told; resource lists still change at the next resources/list.
	Events Publisher
	// Logger receives what could not be announced (see announce.go);
	// nil logs nothing.
	Logger *slog.Logger
}

// Publisher tells front doors of changes; *events.Bus is one.
type Publisher interface {
	Publish(tenant string, ev events.Event) error
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("board: Config.Client is nil")
	}
	return c.Quota.Validate()
}

// Service implements taskwirev1.BoardServiceServer and
// taskwirev1.WorkServiceServer: the queue of approved work is tasks too.
type Service struct {
	taskwirev1.UnimplementedBoardServiceServer
	taskwirev1.UnimplementedWorkServiceServer
	client  *ent.Client
	cursors *cursor.Sealer
	names   *nameCache
	quota   quota.Limits
	events  Publisher
	log     *slog.Logger
}

var (
	_ taskwirev1.BoardServiceServer = (*Service)(nil)
	_ taskwirev1.WorkServiceServer  = (*Service)(nil)
)

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	key := cfg.CursorKey
	if key == nil {
		key = []byte(rand.Text())
	}
	cursors, err := cursor.New(key)
	if err != nil {
		return nil, fmt.Errorf("board: Config.CursorKey: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = discard
	}
	return &Service{client: cfg.Client, cursors: cursors, names: newNameCache(), quota: cfg.Quota, events: cfg.Events, log: log}, nil
}

// Register adds BoardService and WorkService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterBoardServiceServer(r, s)
	taskwirev1.RegisterWorkServiceServer(r, s)
}

// actor is the resolved caller of one call.
type actor struct {
	tenant *ent.Tenant
	member *ent.Member
	names  *nameCache   // the Service's; nil: every name is read
	quota  quota.Limits // the Service's: what the tenant may hold
}

// call resolves the caller of ctx, runs fn with a context scoped to the
// caller's tenant, and translates what fails into domain errors.
func call[Req, Resp any](ctx context.Context, s *Service, req Req,
	fn func(context.Context, actor, Req) (Resp, error)) (Resp, error) {
	a, ctx, err := s.resolve(ctx)
	a.names, a.quota = s.names, s.quota
	if err == nil {
		ctx, w := withWritten(ctx)
		var resp Resp
		resp, err = fn(ctx, a, req)
		if err == nil {
			s.announce(ctx, a, w)
			return resp, nil
		}
	}
	// An internal error is logged once, where the worker translates it
	// (in full, under the ref its caller sees), not here.
	var zero Resp
	return zero, store.DomainError(ctx, err)
}

// resolve finds the tenant and member of the verified caller in ctx and
// returns them with ctx scoped to the tenant for the privacy rule. The
// worker has read them for this call already (identity.AccessFrom); only
// without that, as in tests that call the service directly, does resolve
// query them itself.
func (s *Service) resolve(ctx context.Context) (actor, context.Context, error) {
	c, ok := identity.FromContext(ctx)
	if !ok || c.Validate() != nil {
		return actor{}, ctx, domainerr.New(domainerr.Unauthenticated, "No verified caller: sign in with a token for a member of a tenant")
	}
	if a, ok := identity.AccessFrom(ctx); ok && a.Tenant == c.Tenant && a.MemberID == c.Member {
		return actorOf(a), tenantscope.NewContext(ctx, a.TenantID), nil
	}
	t, m, ctx, err := tenancy.Caller(ctx, s.client, c)
	if err != nil {
		return actor{}, ctx, err
	}
	return actor{tenant: t, member: m}, ctx, nil
}

// actorOf is the actor of a resolved Access. Its entities hold only what
// Access carries (ids, slug and name, handle, display name, kind, role and
// sponsor), which is all the operations read of the caller.
func actorOf(a identity.Access) actor {
	m := &ent.Member{
		ID: a.MemberID, TenantID: a.TenantID, Handle: a.Handle, DisplayName: a.DisplayName,
		Kind: member.Kind(a.Kind), Role: member.Role(a.Role),
	}
	if a.SponsorID != 0 {
		m.SponsorID = &a.SponsorID
	}
	return actor{tenant: &ent.Tenant{ID: a.TenantID, Slug: a.Tenant, Name: a.TenantName}, member: m}
}

// ListBoards lists the boards of the caller's tenant, default board first.
func (s *Service) ListBoards(ctx context.Context, req *taskwirev1.ListBoardsRequest) (*taskwirev1.ListBoardsResponse, error) {
	return call(ctx, s, req, s.listBoards)
}

// GetTask returns one task by its ref, with its comments if asked.
func (s *Service) GetTask(ctx context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	return call(ctx, s, req, s.getTask)
}

// ListTasks lists tasks, filtered and sorted, a page at a time.
func (s *Service) ListTasks(ctx context.Context, req *taskwirev1.ListTasksRequest) (*taskwirev1.ListTasksResponse, error) {
	return call(ctx, s, req, s.listTasks)
}

// CreateTask adds a task to a board.
func (s *Service) CreateTask(ctx context.Context, req *taskwirev1.CreateTaskRequest) (*taskwirev1.CreateTaskResponse, error) {
	return call(ctx, s, req, s.createTask)
}

// UpdateTask changes a task's title, note, kind, size, labels, project or links.
func (s *Service) UpdateTask(ctx context.Context, req *taskwirev1.UpdateTaskRequest) (*taskwirev1.UpdateTaskResponse, error) {
	return call(ctx, s, req, s.updateTask)
}

// MoveTask moves a task to another lane or position, within WIP limits.
func (s *Service) MoveTask(ctx context.Context, req *taskwirev1.MoveTaskRequest) (*taskwirev1.MoveTaskResponse, error) {
	return call(ctx, s, req, s.moveTask)
}

// AddComment adds a comment, signed by the caller, to a task.
func (s *Service) AddComment(ctx context.Context, req *taskwirev1.AddCommentRequest) (*taskwirev1.AddCommentResponse, error) {
	return call(ctx, s, req, s.addComment)
}

// DeleteTask deletes a task softly, once a person confirmed it.
func (s *Service) DeleteTask(ctx context.Context, req *taskwirev1.DeleteTaskRequest) (*taskwirev1.DeleteTaskResponse, error) {
	return call(ctx, s, req, s.deleteTask)
}

// RestoreTask brings a deleted task back, once a person confirmed it.
func (s *Service) RestoreTask(ctx context.Context, req *taskwirev1.RestoreTaskRequest) (*taskwirev1.RestoreTaskResponse, error) {
	return call(ctx, s, req, s.restoreTask)
}

// ImportTasks creates many tasks on one board, all or none, reporting
// progress.
func (s *Service) ImportTasks(ctx context.Context, req *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error) {
	return call(ctx, s, req, s.importTasks)
}

// GetBoardContext returns a board's lanes and rules and the tenant's
// members.
func (s *Service) GetBoardContext(ctx context.Context, req *taskwirev1.GetBoardContextRequest) (*taskwirev1.GetBoardContextResponse, error) {
	return call(ctx, s, req, s.getBoardContext)
}

// CompleteRefs returns up to MaxCompletions tasks whose ref starts with a
// prefix, and how many match in all.
func (s *Service) CompleteRefs(ctx context.Context, req *taskwirev1.CompleteRefsRequest) (*taskwirev1.CompleteRefsResponse, error) {
	return call(ctx, s, req, s.completeRefs)
}

// Package operations is the OperationService: tool calls that run in the
// background while the client polls, the MCP tasks of the
// io.modelcontextprotocol/tasks extension (not the tasks of a board). An
// operation is a row in the database, so any front door answers a poll
// through any worker; the call itself runs on the worker that started it,
// which renews a lease on the row while it runs, so that an operation
// whose worker died is seen as failed instead of working forever.
//
// The call runs through Runner, a connection to this worker's own
// interceptor chain (worker.Server.Local) carrying the metadata the front
// door sent with StartOperation: the caller's identity is checked, its
// scope and role are checked against the tool, and the call is audited,
// by the one chain every call passes. This service checks none of them
// itself.
package operations

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Defaults of Config.
const (
	DefaultTTL          = time.Hour
	DefaultPollInterval = time.Second
	DefaultLease        = 15 * time.Second
)

// Background lists the methods that may run as operations at once,
// without a person's decision: the long calls, whose worker's
// transaction rolls back when the operation is cancelled. Any method may
// run as an operation that waits for a decision.
var Background = map[string]bool{
	taskwirev1.BoardService_ImportTasks_FullMethodName: true,
	// The conformance suite's fixtures of the MCP Tasks extension, served
	// only with --conformance.
	conformancev1.ConformanceService_SlowCompute_FullMethodName:      true,
	conformancev1.ConformanceService_FailingJob_FullMethodName:       true,
	conformancev1.ConformanceService_ProtocolErrorJob_FullMethodName: true,
	conformancev1.ConformanceService_ConfirmDelete_FullMethodName:    true,
	conformancev1.ConformanceService_MultiInput_FullMethodName:       true,
	conformancev1.ConformanceService_ToolWithTask_FullMethodName:     true,
}

// messagesOf returns a new request and response of the gRPC method
// ("/pkg.Service/Method"), from the contract's registered descriptors.
func messagesOf(method string) (req, resp proto.Message, ok bool) {
	name := protoreflect.FullName(strings.ReplaceAll(strings.TrimPrefix(method, "/"), "/", "."))
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
	md, isMethod := d.(protoreflect.MethodDescriptor)
	if err != nil || !isMethod {
		return nil, nil, false
	}
	in, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	if err != nil {
		return nil, nil, false
	}
	out, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err != nil {
		return nil, nil, false
	}
	return in.New().Interface(), out.New().Interface(), true
}

// Config holds what a Service needs.
type Config struct {
	Client *ent.Client // required
	// Logger receives what fails after the caller was answered. Required.
	Logger *slog.Logger
	// TTL is how long an operation is kept after it starts; the client is
	// told (ttlMs). Zero: DefaultTTL.
	TTL time.Duration
	// PollInterval is how often a client should poll (pollIntervalMs).
	// Zero: DefaultPollInterval.
	PollInterval time.Duration
	// Lease is how long a running operation stays working without its
	// worker renewing it; the worker renews it (and checks for a cancel
	// asked of another worker) every Lease/5. Zero: DefaultLease.
	Lease time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Validate reports whether c is complete.
func (c Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("operations: Config.Client is nil")
	case c.Logger == nil:
		return errors.New("operations: Config.Logger is nil (pass slog.New(slog.DiscardHandler) to log nothing)")
	case c.TTL < 0 || c.PollInterval < 0 || c.Lease < 0:
		return errors.New("operations: negative TTL, poll interval or lease")
	}
	return nil
}

// Service implements taskwirev1.OperationServiceServer.
type Service struct {
	taskwirev1.UnimplementedOperationServiceServer
	cfg Config

	mu      sync.Mutex
	runner  grpc.ClientConnInterface
	running map[string]context.CancelCauseFunc // by key, on this worker
	stopped bool
	wg      sync.WaitGroup
}

var _ taskwirev1.OperationServiceServer = (*Service)(nil)

// New returns a Service for cfg; it starts nothing until Attach.
func New(cfg Config) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	return &Service{cfg: cfg, running: map[string]context.CancelCauseFunc{}}, nil
}

// Register adds OperationService to a gRPC server.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterOperationServiceServer(r, s)
}

// Attach gives the service the connection its operations run through:
// this worker's own chain (worker.Server.Local), which exists only once
// the server holding this service is built. Before it, StartOperation
// answers Unavailable.
func (s *Service) Attach(runner grpc.ClientConnInterface) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runner = runner
}

// Stop cancels the operations running on this worker and waits for them
// to record that they failed (the client is told to run the call again),
// or for ctx to end.
func (s *Service) Stop(ctx context.Context) {
	s.mu.Lock()
	s.stopped = true
	for _, cancel := range s.running {
		cancel(errStopping)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// now is the time of the clock, as the database stores it.
func (s *Service) now() time.Time {
	return s.cfg.Now().UTC().Truncate(time.Microsecond)
}

// caller is who makes one call, as the worker resolved it.
type caller struct {
	tenantID, memberID int
}

// call resolves the caller of ctx, runs fn with ctx scoped to the
// caller's tenant, and translates what fails into domain errors.
func call[Req, Resp any](ctx context.Context, s *Service, req Req, fn func(context.Context, caller, Req) (Resp, error)) (Resp, error) {
	c, ctx, err := s.resolve(ctx)
	if err == nil {
		var resp Resp
		if resp, err = fn(ctx, c, req); err == nil {
			return resp, nil
		}
	}
	var zero Resp
	return zero, store.DomainError(ctx, err)
}

// resolve reads the Access the worker resolved for this call, or, without
// one (a test calling the service directly), reads it itself.
func (s *Service) resolve(ctx context.Context) (caller, context.Context, error) {
	c, ok := identity.FromContext(ctx)
	if !ok || c.Validate() != nil {
		return caller{}, ctx, domainerr.New(domainerr.Unauthenticated, "No verified caller: sign in as a member of a tenant")
	}
	if a, ok := identity.AccessFrom(ctx); ok && a.Tenant == c.Tenant && a.MemberID == c.Member {
		return caller{tenantID: a.TenantID, memberID: a.MemberID}, tenantscope.NewContext(ctx, a.TenantID), nil
	}
	t, m, ctx, err := tenancy.Caller(ctx, s.cfg.Client, c)
	if err != nil {
		return caller{}, ctx, err
	}
	return caller{tenantID: t.ID, memberID: m.ID}, ctx, nil
}

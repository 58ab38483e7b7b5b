package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/worker"
)

// Callers holding each scope, as the front door would have verified them.
var (
	reader    = identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: "tok-r"}
	commenter = identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"comment"}, TokenID: "tok-c"}
	writer    = identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"write"}, TokenID: "tok-w"}
)

// testBoard is a BoardService whose handlers each test chooses. A nil
// handler answers Unimplemented, like the embedded server.
type testBoard struct {
	taskwirev1.UnimplementedBoardServiceServer
	getTask     func(context.Context, *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error)
	importTasks func(context.Context, *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error)
	calls       atomic.Int32 // handler calls that reached the board
}

func (b *testBoard) GetTask(ctx context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	b.calls.Add(1)
	if b.getTask == nil {
		return b.UnimplementedBoardServiceServer.GetTask(ctx, req)
	}
	return b.getTask(ctx, req)
}

func (b *testBoard) ImportTasks(ctx context.Context, req *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error) {
	b.calls.Add(1)
	if b.importTasks == nil {
		return b.UnimplementedBoardServiceServer.ImportTasks(ctx, req)
	}
	return b.importTasks(ctx, req)
}

// startWorker serves board from the real worker server on 127.0.0.1:0,
// publishing progress on nc (nil for none), and returns a client
// connection to it.
func startWorker(t *testing.T, board taskwirev1.BoardServiceServer, nc *nats.Conn) *grpc.ClientConn {
	t.Helper()
	return startServices(t, nc, func(r grpc.ServiceRegistrar) { taskwirev1.RegisterBoardServiceServer(r, board) })
}

// Members whose role or kind testRoles sets apart: every other member of
// acme is a person with the member role, and these callers hold every
// scope.
var (
	viewer    = identity.Caller{Tenant: "acme", Member: 9, Scopes: []string{"read", "comment", "write"}, TokenID: "tok-v"}
	departed  = identity.Caller{Tenant: "acme", Member: 404, Scopes: []string{"read", "comment", "write"}, TokenID: "tok-d"}
	assistant = identity.Caller{Tenant: "acme", Member: 11, Scopes: []string{"read", "comment", "write"}, TokenID: "tok-a"}
)

// testRoles is the workers' access resolver in these tests: member 9 of
// acme is a viewer, member 11 an assistant, member 404 is not in acme,
// anyone else is a person with the member role.
type testRoles struct{}

func (testRoles) Resolve(_ context.Context, c identity.Caller) (identity.Access, error) {
	a := identity.Access{TenantID: 1, Tenant: c.Tenant, MemberID: c.Member, Handle: "m", Kind: "human", Role: authz.RoleMember}
	switch c.Member {
	case viewer.Member:
		a.Role = authz.RoleViewer
	case assistant.Member:
		a.Kind = "assistant"
	case departed.Member:
		return identity.Access{}, domainerr.New(domainerr.Unauthenticated, "Your token names a member who is not in its tenant: ask an admin for a new token")
	}
	return a, nil
}

// startServices serves what register registers from the real worker
// server, as startWorker does, beside the AccessService, with roles from
// testRoles.
func startServices(t *testing.T, nc *nats.Conn, register func(grpc.ServiceRegistrar)) *grpc.ClientConn {
	t.Helper()
	srv, err := worker.New(worker.Config{
		Logger:   slog.New(slog.DiscardHandler),
		NATS:     nc,
		Access:   testRoles{},
		Register: []func(grpc.ServiceRegistrar){register, access.New(access.Config{}).Register},
	})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop(context.Background())
		// ErrServerStopped: Stop came before Serve began, in a test
		// whose calls never reached the worker.
		if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			t.Errorf("worker Serve = %v, want nil after Stop", err)
		}
	})
	return conn
}

// testCatalog is the catalogue the front door builds, built once.
var testCatalog = sync.OnceValues(func() (*catalog.Catalog, error) {
	return catalog.New(taskwirev1.SourceDescriptor, taskwirev1.BoardService_ServiceDesc.ServiceName)
})

// newBackend returns a Backend over conn with the real catalogue of the
// board, unless cfg has another; cfg supplies the rest.
func newBackend(t *testing.T, conn grpc.ClientConnInterface, cfg Config) *Backend {
	t.Helper()
	if cfg.Catalog == nil {
		cat, err := testCatalog()
		if err != nil {
			t.Fatalf("catalog.New: %v", err)
		}
		cfg.Catalog = cat
	}
	cfg.Conn = conn
	if cfg.ID == "" {
		cfg.ID = "fd-test"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

// resultText returns the one text block of r, failing t when r has another
// shape.
func resultText(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("result = %+v, want one text content block", r)
	}
	return r.Content[0].Text
}

// mustMatchOutputSchema fails t when structured does not fit the
// outputSchema tools/list advertises for tool.
func mustMatchOutputSchema(t *testing.T, tool mcp.Tool, structured json.RawMessage) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.OutputSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "test:" + tool.Name + "/output.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		t.Fatalf("structuredContent %s is not JSON: %v", structured, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("structuredContent of %s does not fit its outputSchema: %v\n%s", tool.Name, err, structured)
	}
}

package operations_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/services/operations"
)

// heldRunner runs every call until the test releases it or its context
// ends, as a worker's own chain would run an import.
type heldRunner struct {
	release chan struct{}
	mu      sync.Mutex
	ended   []error
}

func newHeldRunner() *heldRunner { return &heldRunner{release: make(chan struct{})} }

func (r *heldRunner) Invoke(ctx context.Context, _ string, _, out any, _ ...grpc.CallOption) error {
	var err error
	select {
	case <-r.release:
		out.(*taskwirev1.ImportTasksResponse).Imported = 3
	case <-ctx.Done():
		err = status.FromContextError(ctx.Err()).Err()
	}
	r.mu.Lock()
	r.ended = append(r.ended, err)
	r.mu.Unlock()
	return err
}

func (r *heldRunner) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "no streams")
}

// worker is one worker's OperationService over the shared database.
func worker(t *testing.T, c *ent.Client, runner grpc.ClientConnInterface, now func() time.Time) *operations.Service {
	t.Helper()
	s, err := operations.New(operations.Config{Client: c, Logger: storetest.Logger(), Lease: time.Second, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	s.Attach(runner)
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}

func as(tenant string, m *ent.Member) context.Context {
	return identity.NewContext(context.Background(), identity.Caller{Tenant: tenant, Member: m.ID, Scopes: authz.AllScopes, TokenID: "test-" + m.Handle})
}

func startImport(t *testing.T, s *operations.Service, ctx context.Context) *taskwirev1.Operation {
	t.Helper()
	raw, err := proto.Marshal(&taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{{Title: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.StartOperation(ctx, &taskwirev1.StartOperationRequest{Method: taskwirev1.BoardService_ImportTasks_FullMethodName, Request: raw})
	if err != nil {
		t.Fatalf("StartOperation = %v", err)
	}
	return resp.GetOperation()
}

func stateOf(t *testing.T, s *operations.Service, ctx context.Context, id string) *taskwirev1.Operation {
	t.Helper()
	resp, err := s.GetOperation(ctx, &taskwirev1.GetOperationRequest{Id: id})
	if err != nil {
		t.Fatalf("GetOperation(%s) = %v", id, err)
	}
	return resp.GetOperation()
}

// TestAnyWorkerAnswers: an operation started on one worker is read and
// cancelled through another, which shares only the database: the cancel
// reaches the running worker at its next lease renewal and stops the
// call. Another member's id is not found, in the words of an id that
// never existed.
func TestAnyWorkerAnswers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		boot, err := tenancy.Bootstrap(context.Background(), c, tenancy.Config{TenantSlug: "acme", OwnerHandle: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		bob, err := tenancy.AddMember(context.Background(), c, "acme", tenancy.MemberSpec{Handle: "bob"})
		if err != nil {
			t.Fatal(err)
		}
		alice := as("acme", boot.Owner)
		runA := newHeldRunner()
		a, b := worker(t, c, runA, nil), worker(t, c, newHeldRunner(), nil)

		done := startImport(t, a, alice)
		if got := stateOf(t, b, alice, done.GetId()); got.GetState() != taskwirev1.OperationState_OPERATION_STATE_WORKING {
			t.Errorf("operation read on the other worker = %v, want working", got)
		}
		stopped := startImport(t, a, alice)
		if _, err := b.CancelOperation(alice, &taskwirev1.CancelOperationRequest{Id: stopped.GetId()}); err != nil {
			t.Fatalf("CancelOperation on the other worker = %v", err)
		}
		poll.Until(t, 10*time.Second, "the cancel to reach the running worker", func() bool {
			return stateOf(t, b, alice, stopped.GetId()).GetState() == taskwirev1.OperationState_OPERATION_STATE_CANCELLED
		})
		close(runA.release)
		poll.Until(t, 10*time.Second, "the other operation to complete", func() bool {
			return stateOf(t, b, alice, done.GetId()).GetState() == taskwirev1.OperationState_OPERATION_STATE_COMPLETED
		})
		var resp taskwirev1.ImportTasksResponse
		if err := proto.Unmarshal(stateOf(t, b, alice, done.GetId()).GetResponse(), &resp); err != nil || resp.GetImported() != 3 {
			t.Errorf("completed operation's response = %v, %v; want 3 imported", &resp, err)
		}

		bobs := as("acme", bob)
		_, theirs := b.GetOperation(bobs, &taskwirev1.GetOperationRequest{Id: done.GetId()})
		_, none := b.GetOperation(bobs, &taskwirev1.GetOperationRequest{Id: "NEVER"})
		if domainerr.KindOf(theirs) != domainerr.NotFound || strings.ReplaceAll(domainerr.Message(theirs), done.GetId(), "ID") != strings.ReplaceAll(domainerr.Message(none), "NEVER", "ID") {
			t.Errorf("GetOperation of another member's operation = %v; of none = %v; want the same NotFound", theirs, none)
		}
		if _, err := b.CancelOperation(bobs, &taskwirev1.CancelOperationRequest{Id: done.GetId()}); domainerr.KindOf(err) != domainerr.NotFound {
			t.Errorf("CancelOperation of another member's operation = %v, want NotFound", err)
		}
	})
}

// TestLostWorker: an operation whose worker stopped renewing its lease
// reads failed on another worker, saying to run the call again.
func TestLostWorker(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		boot, err := tenancy.Bootstrap(context.Background(), c, tenancy.Config{TenantSlug: "acme", OwnerHandle: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		alice := as("acme", boot.Owner)
		later := func() time.Time { return time.Now().Add(time.Minute) } // past any lease, within the TTL
		a, b := worker(t, c, newHeldRunner(), nil), worker(t, c, newHeldRunner(), later)
		op := startImport(t, a, alice)
		got := stateOf(t, b, alice, op.GetId())
		if got.GetState() != taskwirev1.OperationState_OPERATION_STATE_FAILED || !strings.Contains(got.GetStatusMessage(), "run the call again") {
			t.Errorf("operation of a silent worker = %v, want failed, saying to run the call again", got)
		}
	})
}

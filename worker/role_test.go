package worker

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/services/access"
)

// fakeResolver answers from a map of member id → Access, which a test may
// change between calls; a member it lacks is Unauthenticated.
type fakeResolver struct {
	mu      sync.Mutex
	members map[int]identity.Access
	calls   atomic.Int32
}

func (f *fakeResolver) Resolve(_ context.Context, c identity.Caller) (identity.Access, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.members[c.Member]
	if !ok || a.Tenant != c.Tenant {
		return identity.Access{}, domainerr.New(domainerr.Unauthenticated, "Your token names a member who is not in its tenant: ask an admin for a new token")
	}
	return a, nil
}

func (f *fakeResolver) setRole(member int, role string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.members[member]
	a.Role = role
	f.members[member] = a
}

// startRoleWorker serves the test board and the AccessService with roles
// from a fakeResolver in which member 7 of acme is viewer "vic".
func startRoleWorker(t *testing.T) (*testWorker, *fakeResolver, taskwirev1.AccessServiceClient) {
	t.Helper()
	res := &fakeResolver{members: map[int]identity.Access{7: {
		TenantID: 1, Tenant: "acme", TenantName: "Acme", MemberID: 7, Handle: "vic", DisplayName: "Vic",
		Kind: "assistant", Role: "viewer", SponsorID: 1, Sponsor: "alice",
	}}}
	w := startWorker(t, func(c *Config) {
		c.Access = res
		c.Register = append(c.Register, func(r grpc.ServiceRegistrar) { access.New(access.Config{}).Register(r) })
	})
	return w, res, taskwirev1.NewAccessServiceClient(w.conn)
}

func TestRoleRefusal(t *testing.T) {
	w, res, _ := startRoleWorker(t)
	all := []string{"read", "comment", "write"}

	_, err := w.client.CreateTask(asCaller(all...), &taskwirev1.CreateTaskRequest{Title: "x"})
	st := status.Convert(err)
	want := "You are a viewer on tenant acme, and viewers can only read: you cannot create a task (tasks_create needs write). Ask an owner or admin of acme for a role that allows write."
	if st.Code() != codes.PermissionDenied || st.Message() != want {
		t.Errorf("viewer CreateTask = %v %q, want PermissionDenied %q", st.Code(), st.Message(), want)
	}
	reason, md := access.Reason(err)
	if reason != access.ReasonRoleForbids || md["role"] != "viewer" || md["tool"] != "tasks_create" || md["scope"] != "write" {
		t.Errorf("viewer CreateTask reason = %q %v, want %s for viewer, tasks_create, write", reason, md, access.ReasonRoleForbids)
	}

	_, err = w.client.AddComment(asCaller(all...), &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "x"})
	if reason, _ := access.Reason(err); reason != access.ReasonRoleForbids {
		t.Errorf("viewer AddComment = %v, want reason %s", err, access.ReasonRoleForbids)
	}
	if _, err := w.client.GetTask(asCaller(all...), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("viewer GetTask = %v, want success", err)
	}

	// Access is read on every call: a promotion applies to the next one.
	res.setRole(7, "member")
	if _, err := w.client.CreateTask(asCaller(all...), &taskwirev1.CreateTaskRequest{Title: "x"}); err != nil {
		t.Errorf("member CreateTask = %v, want success", err)
	}
	if got := res.calls.Load(); got != 4 {
		t.Errorf("Resolve calls = %d, want 4: one per call", got)
	}
}

// TestScopeRefusalComesFirst: a call both the token and the role refuse is
// refused for the token, which needs no database and which a client can
// replace; the role is never read.
func TestScopeRefusalComesFirst(t *testing.T) {
	w, res, _ := startRoleWorker(t)
	_, err := w.client.CreateTask(asCaller("read"), &taskwirev1.CreateTaskRequest{Title: "x"})
	st := status.Convert(err)
	if want := "This token lacks the write scope needed by tasks_create; ask an admin for a token with write."; st.Code() != codes.PermissionDenied || st.Message() != want {
		t.Errorf("viewer CreateTask with a read token = %v %q, want PermissionDenied %q", st.Code(), st.Message(), want)
	}
	reason, md := access.Reason(err)
	if reason != access.ReasonInsufficientScope || md["tool"] != "tasks_create" || md["scope"] != "write" {
		t.Errorf("reason = %q %v, want %s for tasks_create, write", reason, md, access.ReasonInsufficientScope)
	}
	if got := res.calls.Load(); got != 0 {
		t.Errorf("Resolve calls = %d, want 0", got)
	}
}

func TestUnknownMemberIsUnauthenticated(t *testing.T) {
	w, _, accessClient := startRoleWorker(t)
	stranger := identity.AppendToOutgoing(context.Background(), identity.Caller{Tenant: "acme", Member: 8, Scopes: []string{"read"}})
	_, err := w.client.GetTask(stranger, &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if st := status.Convert(err); st.Code() != codes.Unauthenticated || st.Message() != "Your token names a member who is not in its tenant: ask an admin for a new token" {
		t.Errorf("GetTask as an unknown member = %v, want Unauthenticated with the sentence", err)
	}
	// Also for methods that are not tools.
	if _, err := accessClient.GetAccess(stranger, &taskwirev1.GetAccessRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("GetAccess as an unknown member = %v, want Unauthenticated", err)
	}
}

func TestAccessService(t *testing.T) {
	_, _, client := startRoleWorker(t)
	got, err := client.GetAccess(asCaller("read"), &taskwirev1.GetAccessRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := &taskwirev1.GetAccessResponse{
		Tenant: "acme", Handle: "vic", DisplayName: "Vic", Sponsor: "alice",
		Kind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Role: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER,
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("GetAccess (-want +got):\n%s", diff)
	}

	who, err := client.Whoami(asCaller("read", "write"), &taskwirev1.WhoamiRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(who.Scopes, []string{"read", "write"}) || !slices.Equal(who.Allowed, []string{"read"}) ||
		who.Role != taskwirev1.MemberRole_MEMBER_ROLE_VIEWER || who.Sponsor != "alice" {
		t.Errorf("Whoami = %v, want viewer vic sponsored by alice, scopes read write, allowed read", who)
	}
	if want := "You are vic (Vic), a viewer on tenant acme. You are an assistant sponsored by alice. Your role allows read; your token allows read, comment and write; so you may read."; who.Summary != want {
		t.Errorf("Whoami summary = %q, want %q", who.Summary, want)
	}
	if _, err := client.Whoami(asCaller(), &taskwirev1.WhoamiRequest{}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("Whoami without scopes = %v, want PermissionDenied", err)
	}
}

// TestAccessServiceNeedsResolver: a worker without an access resolver has
// no Access to return, which is its operator's mistake: Internal.
func TestAccessServiceNeedsResolver(t *testing.T) {
	w := startWorker(t, func(c *Config) {
		c.Register = append(c.Register, func(r grpc.ServiceRegistrar) { access.New(access.Config{}).Register(r) })
	})
	_, err := taskwirev1.NewAccessServiceClient(w.conn).GetAccess(asCaller("read"), &taskwirev1.GetAccessRequest{})
	if status.Code(err) != codes.Internal {
		t.Errorf("GetAccess without a resolver = %v, want Internal", err)
	}
}

package worker

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/audit"
)

// fakeAuditor keeps what it is asked to record. While hold is open,
// writes wait for it (entered is signalled as each begins); err, when
// set, is what they return.
type fakeAuditor struct {
	mu      sync.Mutex
	events  []audit.Event
	batches []int // sizes of RecordAll's batches, in order
	inTx    int   // events RecordTx wrote that committed
	hold    chan struct{}
	entered chan struct{}
	err     error
}

func (f *fakeAuditor) wait(ctx context.Context) error {
	if f.entered != nil {
		select {
		case f.entered <- struct{}{}:
		default:
		}
	}
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *fakeAuditor) RecordAll(ctx context.Context, events []audit.Event) (int, error) {
	if err := f.wait(ctx); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, events...)
	f.batches = append(f.batches, len(events))
	return 0, nil
}

// RecordTx keeps e once tx commits.
func (f *fakeAuditor) RecordTx(ctx context.Context, tx *ent.Tx, e audit.Event) error {
	if err := f.wait(ctx); err != nil {
		return err
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if err == nil {
				f.mu.Lock()
				f.events = append(f.events, e)
				f.inTx++
				f.mu.Unlock()
			}
			return err
		})
	})
	return nil
}

func (f *fakeAuditor) recorded() []audit.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]audit.Event(nil), f.events...)
}

// auditService serves the audit_list tool with an empty log, to test its
// min_role.
type auditService struct {
	taskwirev1.UnimplementedAuditServiceServer
}

func (auditService) ListAudit(context.Context, *taskwirev1.ListAuditRequest) (*taskwirev1.ListAuditResponse, error) {
	return &taskwirev1.ListAuditResponse{}, nil
}

// startAuditWorker is startRoleWorker (viewer vic, member 7 of acme, an
// assistant sponsored by alice) recording into a fakeAuditor, also serving
// the AuditService.
func startAuditWorker(t *testing.T, edit func(*Config)) (*testWorker, *fakeResolver, *fakeAuditor) {
	t.Helper()
	a := &fakeAuditor{}
	res := &fakeResolver{members: map[int]identity.Access{7: {
		TenantID: 1, Tenant: "acme", TenantName: "Acme", MemberID: 7, Handle: "vic", DisplayName: "Vic",
		Kind: "assistant", Role: "viewer", SponsorID: 1, Sponsor: "alice",
	}}}
	w := startWorker(t, func(c *Config) {
		c.Access = res
		c.Auditor = a
		c.Register = append(c.Register,
			func(r grpc.ServiceRegistrar) { access.New(access.Config{}).Register(r) },
			func(r grpc.ServiceRegistrar) { taskwirev1.RegisterAuditServiceServer(r, auditService{}) })
		if edit != nil {
			edit(c)
		}
	})
	return w, res, a
}

// TestAuditOutcomes: every named call is recorded once it ends, with who
// made it and how it ended: success, failure, a refusal by the scope step
// (before the member was read) or by the role step, and a panic.
func TestAuditOutcomes(t *testing.T) {
	w, _, a := startAuditWorker(t, nil)
	w.board.errs["T-9"] = domainerr.New(domainerr.NotFound, "No task T-9 in tenant acme")
	w.board.errs["T-8"] = domainerr.New(domainerr.Conflict, "board %s already has %s (%s %q): update it instead", "main", "an open task", "T-4", "classified plan")
	w.board.errs["T-7"] = domainerr.New(domainerr.Exhausted, "tenant %s holds %d tasks, its quota", "classified", 50000)
	all := []string{"read", "comment", "write"}

	calls := []func() error{
		func() error {
			_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"})
			return err
		},
		func() error {
			_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-9"})
			return err
		},
		func() error {
			_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-8"})
			return err
		},
		func() error {
			_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-7"})
			return err
		},
		func() error {
			_, err := w.client.CreateTask(asCaller(all...), &taskwirev1.CreateTaskRequest{Title: "classified plan", Board: "main"})
			return err
		},
		func() error {
			_, err := w.client.AddComment(asCaller("read"), &taskwirev1.AddCommentRequest{Ref: "T-2", Body: "classified words"})
			return err
		},
		func() error {
			_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "panic"})
			return err
		},
	}
	wantCodes := []codes.Code{codes.OK, codes.NotFound, codes.FailedPrecondition, codes.ResourceExhausted, codes.PermissionDenied, codes.PermissionDenied, codes.Internal}
	for i, call := range calls {
		if got := status.Code(call()); got != wantCodes[i] {
			t.Fatalf("call %d = %v, want %v", i, got, wantCodes[i])
		}
		if n := len(a.recorded()); n != i+1 {
			t.Fatalf("after call %d was answered, %d events recorded; want its own too", i, n)
		}
	}
	vic := audit.Event{Tenant: "acme", TenantID: 1, MemberID: 7, Member: "vic", Kind: "assistant", Sponsor: "alice", TokenID: "tok-secret-id"}
	event := func(who audit.Event, method, tool string, targets []string, outcome, msg string) audit.Event {
		who.Method, who.Tool, who.Targets, who.Outcome, who.Error = method, tool, targets, outcome, msg
		return who
	}
	unresolved := audit.Event{Tenant: "acme", MemberID: 7, TokenID: "tok-secret-id"}
	want := []audit.Event{
		event(vic, taskwirev1.BoardService_GetTask_FullMethodName, "tasks_get", []string{"ref=T-1"}, "ok", ""),
		event(vic, taskwirev1.BoardService_GetTask_FullMethodName, "tasks_get", []string{"ref=T-9"}, "NotFound", "No task T-9 in tenant acme"),
		// The failure's sentence without what a caller or a task wrote.
		event(vic, taskwirev1.BoardService_GetTask_FullMethodName, "tasks_get", []string{"ref=T-8"}, "FailedPrecondition", `board … already has … (T-4 "…"): update it instead`),
		// A quota's refusal too.
		event(vic, taskwirev1.BoardService_GetTask_FullMethodName, "tasks_get", []string{"ref=T-7"}, "ResourceExhausted", "tenant … holds 50000 tasks, its quota"),
		event(vic, taskwirev1.BoardService_CreateTask_FullMethodName, "tasks_create", []string{"board=main"}, "refused",
			"You are a viewer on tenant acme, and viewers can only read: you cannot create a task (tasks_create needs write). Ask an owner or admin of acme for a role that allows write."),
		event(unresolved, taskwirev1.BoardService_AddComment_FullMethodName, "comments_add", []string{"ref=T-2"}, "refused",
			"This token lacks the comment scope needed by comments_add; ask an admin for a token with comment."),
		event(vic, taskwirev1.BoardService_GetTask_FullMethodName, "tasks_get", []string{"ref=panic"}, "Internal", "the call failed"),
	}
	got := a.recorded()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(audit.Event{}, "OccurredAt", "Duration"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("audit events (-want +got):\n%s", diff)
	}
	for _, e := range got {
		if e.OccurredAt.IsZero() || e.Duration <= 0 {
			t.Errorf("%s: occurred at %v after %v, want both set", e.Method, e.OccurredAt, e.Duration)
		}
		if strings.Contains(fmt.Sprint(e), "classified") {
			t.Errorf("an audit event holds what the call carried: %+v", e)
		}
	}
}

// TestAuditSkips: health checks, callerless methods and GetAccess (asked
// by every tools/list) are not recorded; whoami is.
func TestAuditSkips(t *testing.T) {
	w, _, a := startAuditWorker(t, func(c *Config) {
		c.Unnamed = []string{taskwirev1.BoardService_ListBoards_FullMethodName}
	})
	ctx := context.Background()
	if _, err := healthpb.NewHealthClient(w.conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	w.client.ListBoards(ctx, &taskwirev1.ListBoardsRequest{}) // callerless; unimplemented here
	accessClient := taskwirev1.NewAccessServiceClient(w.conn)
	if _, err := accessClient.GetAccess(asCaller("read"), &taskwirev1.GetAccessRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := accessClient.Whoami(asCaller("read"), &taskwirev1.WhoamiRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := a.recorded(); len(got) != 1 || got[0].Tool != "whoami" {
		t.Errorf("recorded %+v, want whoami alone", got)
	}
}

// TestAuditMetadata: the session label the client sent and the trace id of
// its traceparent are recorded.
func TestAuditMetadata(t *testing.T) {
	w, _, a := startAuditWorker(t, nil)
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := metadata.AppendToOutgoingContext(asCaller("read"), MDSessionLabel, "laptop claude", "traceparent", tp)
	if _, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Fatal(err)
	}
	if e := a.recorded()[0]; e.SessionLabel != "laptop claude" || e.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("label %q trace %q, want %q and the traceparent's trace id", e.SessionLabel, e.TraceID, "laptop claude")
	}
}

// TestAuditTargets: only string fields of the target names are read, in
// declaration order, at most maxTargets values, each cut short.
func TestAuditTargets(t *testing.T) {
	tests := []struct {
		req  any
		want []string
	}{
		{&taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true}, []string{"ref=T-1"}},
		{&taskwirev1.AddCommentRequest{Ref: "T-2", Body: "words"}, []string{"ref=T-2"}},
		{&taskwirev1.ListTasksRequest{Board: "main", Cursor: "abc"}, []string{"board=main"}},
		{&taskwirev1.CreateTaskRequest{Title: "a title", Assignees: []string{"bob"}}, nil},
		{&taskwirev1.CreateBoardRequest{Slug: "ops", Name: "Operations"}, []string{"slug=ops"}},
		{&taskwirev1.GetTaskRequest{Ref: "T-1\nignore all\x00that"}, []string{"ref=T-1ignore allthat"}},
		{"not a message", nil},
	}
	for _, tt := range tests {
		if got := targets(tt.req); !cmp.Equal(got, tt.want, cmpopts.EquateEmpty()) {
			t.Errorf("targets(%v) = %q, want %q", tt.req, got, tt.want)
		}
	}

	msg := dynamicMessage(t)
	fields := msg.Descriptor().Fields()
	refs := msg.Mutable(fields.ByName("refs")).List()
	for i := range 30 {
		refs.Append(protoreflect.ValueOfString(fmt.Sprintf("T-%d", i)))
	}
	msg.Set(fields.ByName("member"), protoreflect.ValueOfInt32(7)) // not a string: skipped
	msg.Set(fields.ByName("handle"), protoreflect.ValueOfString(strings.Repeat("h", 300)))
	got := targets(msg)
	if len(got) != maxTargets || got[0] != "refs=T-0" || got[maxTargets-1] != fmt.Sprintf("refs=T-%d", maxTargets-1) {
		t.Errorf("targets of 30 refs = %q, want the first %d", got, maxTargets)
	}
	msg.Mutable(fields.ByName("refs")).List().Truncate(1)
	got = targets(msg)
	if len(got) != 2 || got[1] != "handle="+strings.Repeat("h", maxTargetLen) {
		t.Errorf("targets = %q, want refs=T-0 and the handle cut to %d bytes", got, maxTargetLen)
	}
}

// TestAuditOperator: a platform operator's call goes to the log of the
// tenant its request names, as an operator's; one naming no tenant is not
// recorded.
func TestAuditOperator(t *testing.T) {
	msg := dynamicMessage(t)
	msg.Set(msg.Descriptor().Fields().ByName("tenant"), protoreflect.ValueOfString("acme"))
	c := &auditedCall{log: &auditLog{now: time.Now}, ctx: identity.NewOperatorContext(context.Background()),
		req: msg, method: "/taskwire.admin.v1.AdminService/AddMember", start: time.Now()}
	e := c.event(nil)
	if e.Tenant != "acme" || e.Kind != audit.KindOperator || e.MemberID != 0 || e.Outcome != audit.OutcomeOK ||
		!cmp.Equal(e.Targets, []string{"tenant=acme"}) {
		t.Errorf("operator event = %+v, want an operator's ok call in acme naming tenant=acme", e)
	}
	if got := operatorTenant(&taskwirev1.GetTaskRequest{Ref: "T-1"}); got != "" {
		t.Errorf("operatorTenant(GetTaskRequest) = %q, want none", got)
	}
}

// TestMinRole: a tool whose option names a min_role refuses weaker roles
// in the worker, as a ROLE_FORBIDS refusal whose sentence says whom the
// tool is for, even when the role allows the tool's scope.
func TestMinRole(t *testing.T) {
	w, res, a := startAuditWorker(t, nil)
	client := taskwirev1.NewAuditServiceClient(w.conn)
	all := []string{"read", "comment", "write"}
	for _, role := range []string{"viewer", "member"} {
		res.setRole(7, role)
		_, err := client.ListAudit(asCaller(all...), &taskwirev1.ListAuditRequest{})
		want := "You are a " + role + " on tenant acme, and only owners and admins may list the audit log (audit_list). Ask an owner or admin of acme if you need it done."
		if st := status.Convert(err); st.Code() != codes.PermissionDenied || st.Message() != want {
			t.Errorf("%s ListAudit = %v %q, want PermissionDenied %q", role, st.Code(), st.Message(), want)
		}
		if reason, md := access.Reason(err); reason != access.ReasonRoleForbids || md["min_role"] != "admin" || md["tool"] != "audit_list" {
			t.Errorf("%s ListAudit reason = %q %v, want %s with min_role admin", role, reason, md, access.ReasonRoleForbids)
		}
	}
	for _, role := range []string{"admin", "owner"} {
		res.setRole(7, role)
		if _, err := client.ListAudit(asCaller("read"), &taskwirev1.ListAuditRequest{}); err != nil {
			t.Errorf("%s ListAudit = %v, want success", role, err)
		}
	}
	got := a.recorded()
	for i, outcome := range []string{"refused", "refused", "ok", "ok"} {
		if got[i].Outcome != outcome || got[i].Tool != "audit_list" {
			t.Errorf("event %d = %s %s, want audit_list %s", i, got[i].Tool, got[i].Outcome, outcome)
		}
	}
}

// dynamicMessage is a message with a repeated string "refs", an int32
// "member" and strings "handle" and "tenant", as no Taskwire request has
// them.
func dynamicMessage(t *testing.T) *dynamicpb.Message {
	t.Helper()
	str, i32 := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("audit_targets_test.proto"), Package: proto.String("test"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Request"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("refs"), Number: proto.Int32(1), Type: str, Label: rep, JsonName: proto.String("refs")},
				{Name: proto.String("member"), Number: proto.Int32(2), Type: i32, Label: opt, JsonName: proto.String("member")},
				{Name: proto.String("handle"), Number: proto.Int32(3), Type: str, Label: opt, JsonName: proto.String("handle")},
				{Name: proto.String("tenant"), Number: proto.Int32(4), Type: str, Label: opt, JsonName: proto.String("tenant")},
			},
		}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewMessage(fd.Messages().Get(0))
}

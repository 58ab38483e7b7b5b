package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/services/audit"
	"github.com/taskwire/taskwire/services/domainerr"
	"github.com/taskwire/taskwire/services/identity"
)

// fakeAuditor keeps what it is asked to record. While hold is open, Record
// waits for it; err, when set, is what Record returns.
type fakeAuditor struct {
	mu     sync.Mutex
	events []audit.Event
	hold   chan struct{}
	err    error
}

func (f *fakeAuditor) Record(ctx context.Context, e audit.Event) error {
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
	return f.err
}

func (f *fakeAuditor) recorded() []audit.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]audit.Event(nil), f.events...)
}

// await waits until n events were recorded and returns them.
func (f *fakeAuditor) await(t *testing.T, n int) []audit.Event {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d audit events", n), func() bool { return len(f.recorded()) >= n })
	return f.recorded()
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
	res := &fakeResolver{members: map[int]access.Access{7: {
		TenantID: 1, Tenant: "acme", TenantName: "Acme", MemberID: 7, Handle: "vic", DisplayName: "Vic",
		Kind: "assistant", Role: "viewer", SponsorID: 1, Sponsor: "alice",
	}}}
	w := startWorker(t, func(c *Config) {
		c.Access = res
		c.Auditor = a
		c.Register = append(c.Register,
			func(r grpc.ServiceRegistrar) { access.NewService().Register(r) },
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
	wantCodes := []codes.Code{codes.OK, codes.NotFound, codes.PermissionDenied, codes.PermissionDenied, codes.Internal}
	for i, call := range calls {
		if got := status.Code(call()); got != wantCodes[i] {
			t.Fatalf("call %d = %v, want %v", i, got, wantCodes[i])
		}
		a.await(t, i+1) // one at a time, to compare in order
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
	got := a.await(t, 1)
	w.srv.Stop(ctx) // writes whatever is still queued
	if got = a.recorded(); len(got) != 1 || got[0].Tool != "whoami" {
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
	if e := a.await(t, 1)[0]; e.SessionLabel != "laptop claude" || e.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("label %q trace %q, want %q and the traceparent's trace id", e.SessionLabel, e.TraceID, "laptop claude")
	}
}

// TestSessionLabel: a label that is not printable text is not recorded,
// and a long one is cut to maxSessionLabel characters. (gRPC itself lets
// only printable ASCII through; the worker does not rely on it.)
func TestSessionLabel(t *testing.T) {
	tests := []struct {
		md   metadata.MD
		want string
	}{
		{metadata.Pairs(MDSessionLabel, "laptop claude"), "laptop claude"},
		{metadata.Pairs(MDSessionLabel, "bad\x01label"), ""},
		{metadata.Pairs(MDSessionLabel, "line\nbreak"), ""},
		{metadata.Pairs(MDSessionLabel, "bad \xff utf-8"), ""},
		{metadata.Pairs(MDSessionLabel, strings.Repeat("é", 150)), strings.Repeat("é", 100)},
		{metadata.Pairs(MDSessionLabel, "one", MDSessionLabel, "two"), ""},
		{metadata.MD{}, ""},
	}
	for _, tt := range tests {
		ctx := metadata.NewIncomingContext(context.Background(), tt.md)
		if got := sessionLabel(ctx); got != tt.want {
			t.Errorf("sessionLabel(%q) = %q, want %q", tt.md.Get(MDSessionLabel), got, tt.want)
		}
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
	l := &auditLog{now: time.Now}
	ctx := identity.NewOperatorContext(context.Background())
	msg := dynamicMessage(t)
	msg.Set(msg.Descriptor().Fields().ByName("tenant"), protoreflect.ValueOfString("acme"))
	e := l.event(ctx, msg, "/taskwire.admin.v1.AdminService/AddMember", time.Now(), &accessNote{}, nil)
	if e.Tenant != "acme" || e.Kind != audit.KindOperator || e.MemberID != 0 || e.Outcome != audit.OutcomeOK ||
		!cmp.Equal(e.Targets, []string{"tenant=acme"}) {
		t.Errorf("operator event = %+v, want an operator's ok call in acme naming tenant=acme", e)
	}
	if got := operatorTenant(&taskwirev1.GetTaskRequest{Ref: "T-1"}); got != "" {
		t.Errorf("operatorTenant(GetTaskRequest) = %q, want none", got)
	}
}

// TestAuditNeverFailsTheCall: an Auditor that is stuck or failing costs
// the calls nothing; events that do not fit the queue are dropped with a
// counted warning.
func TestAuditNeverFailsTheCall(t *testing.T) {
	stuck := &fakeAuditor{hold: make(chan struct{})}
	w := startWorker(t, func(c *Config) {
		c.Auditor = stuck
		c.AuditQueue = 2
	})
	start := time.Now()
	for range 10 {
		if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
			t.Fatalf("GetTask with a stuck auditor = %v, want success", err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("10 calls took %v with a stuck auditor, want no waiting", d)
	}
	// Two events wait and one may be being written: the other seven or
	// eight are dropped, with one warning for the burst.
	waitFor(t, "the drop warning", func() bool { return len(w.logs.find("worker: audit queue full; audit events dropped", nil)) == 1 })
	dropped := int(w.srv.audit.dropped.Load())
	if dropped != 7 && dropped != 8 {
		t.Errorf("dropped %d events, want 7 or 8", dropped)
	}
	close(stuck.hold)
	stuck.await(t, 10-dropped)

	failing := &fakeAuditor{err: errors.New("database is down")}
	w = startWorker(t, func(c *Config) { c.Auditor = failing })
	if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Fatalf("GetTask with a failing auditor = %v, want success", err)
	}
	waitFor(t, "the failure's warning", func() bool {
		return len(w.logs.find("worker: audit event not recorded", map[string]string{"err": "database is down"})) == 1
	})
}

// TestAuditFlushOnStop: Stop writes the events still queued.
func TestAuditFlushOnStop(t *testing.T) {
	slow := &fakeAuditor{hold: make(chan struct{})}
	w := startWorker(t, func(c *Config) { c.Auditor = slow })
	for range 5 {
		if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
			t.Fatal(err)
		}
	}
	close(slow.hold)
	w.srv.Stop(context.Background())
	if n := len(slow.recorded()); n != 5 {
		t.Errorf("after Stop, %d events recorded, want all 5", n)
	}
}

// TestAuditFlushBatches: with a BatchAuditor, what is still queued when
// the worker stops is written in batches too, not an event at a time, so
// more of it is written within the flush's time.
func TestAuditFlushBatches(t *testing.T) {
	b := &batchAuditor{}
	l := &auditLog{
		auditor: b, log: slog.New(slog.DiscardHandler), queue: make(chan audit.Event, 600),
		stopping: make(chan struct{}), done: make(chan struct{}), now: time.Now,
	}
	close(l.stopping)
	const queued = 2*maxAuditBatch + 10
	for i := range queued {
		l.queue <- audit.Event{Tenant: "acme", Method: fmt.Sprint("m", i)}
	}
	l.flush()
	total := 0
	for _, n := range b.sizes {
		total += n
	}
	if total != queued || len(b.sizes) != 3 {
		t.Errorf("flush wrote batches %v, want the %d queued events in 3", b.sizes, queued)
	}
}

// TestAuditGatherBusy: with a full batch already queued the writer does
// not linger (else a busy worker would write one batch per linger and
// drop what overflows the queue); with less, it gathers what queued.
func TestAuditGatherBusy(t *testing.T) {
	l := &auditLog{
		log: slog.New(slog.DiscardHandler), queue: make(chan audit.Event, 2*maxAuditBatch),
		stopping: make(chan struct{}), done: make(chan struct{}), now: time.Now,
	}
	for i := range maxAuditBatch + 5 {
		l.queue <- audit.Event{Method: fmt.Sprint("m", i)}
	}
	got := make(chan []audit.Event)
	go func() { got <- l.gather(audit.Event{Method: "first"}, time.Hour) }()
	select {
	case batch := <-got:
		if len(batch) != maxAuditBatch || batch[0].Method != "first" || batch[1].Method != "m0" {
			t.Errorf("gather with a full batch queued returned %d events starting %q, %q; want %d starting with first, m0",
				len(batch), batch[0].Method, batch[1].Method, maxAuditBatch)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gather lingered with a full batch queued")
	}
	if n := len(l.queue); n != 6 {
		t.Errorf("%d events left queued, want 6", n)
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
	got := a.await(t, 4)
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

// batchAuditor is a fakeAuditor that also writes batches, noting their
// sizes.
type batchAuditor struct {
	fakeAuditor
	sizes []int
}

func (b *batchAuditor) RecordAll(ctx context.Context, events []audit.Event) (int, error) {
	for _, e := range events {
		if err := b.Record(ctx, e); err != nil {
			return 0, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sizes = append(b.sizes, len(events))
	return 0, nil
}

// TestAuditBatches: with a BatchAuditor, events that queue up within the
// linger or while a write is under way are written together, and none is
// lost.
func TestAuditBatches(t *testing.T) {
	b := &batchAuditor{fakeAuditor: fakeAuditor{hold: make(chan struct{})}}
	w, _, _ := startAuditWorker(t, func(c *Config) { c.Auditor = b })
	const calls = 6
	for i := range calls {
		if _, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: fmt.Sprint("T-", i)}); err != nil {
			t.Fatalf("GetTask = %v", err)
		}
	}
	close(b.hold)
	got := b.await(t, calls)
	for i, e := range got {
		if want := fmt.Sprint("ref=T-", i); len(e.Targets) != 1 || e.Targets[0] != want {
			t.Errorf("event %d targets %v, want [%s]", i, e.Targets, want)
		}
	}
	// The first batch (what queued within the linger) was held while the
	// rest queued: they come in at most one more batch.
	sizes := func() []int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return append([]int(nil), b.sizes...)
	}
	total := func() int {
		n := 0
		for _, s := range sizes() {
			n += s
		}
		return n
	}
	waitFor(t, "the batches to be noted", func() bool { return total() == calls })
	if s := sizes(); len(s) > 2 {
		t.Errorf("batch sizes %v, want the %d events in one or two batches", s, calls)
	}
}

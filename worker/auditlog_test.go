package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/tenant"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/audit"
)

// heldAuditor is a fakeAuditor whose writes wait until the test lets them.
func heldAuditor() *fakeAuditor {
	return &fakeAuditor{hold: make(chan struct{}), entered: make(chan struct{}, 64)}
}

// getTaskAsync calls GetTask of ref with ctx and sends its error on the
// channel returned.
func getTaskAsync(w *testWorker, ctx context.Context, ref string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: ref})
		done <- err
	}()
	return done
}

// TestAuditAnswersAfterItsRow: a call is answered only once its event is
// written: while the write is under way the call waits, and when the
// write fails the call fails, saying to try again.
func TestAuditAnswersAfterItsRow(t *testing.T) {
	a := heldAuditor()
	w := startWorker(t, func(c *Config) { c.Auditor = a })
	done := getTaskAsync(w, asCaller("read"), "T-1")
	<-a.entered
	select {
	case err := <-done:
		t.Fatalf("GetTask was answered (%v) while its audit event was still being written", err)
	default:
	}
	close(a.hold)
	if err := <-done; err != nil {
		t.Fatalf("GetTask = %v once its event was written, want success", err)
	}
	if got := a.recorded(); len(got) != 1 || got[0].Tool != "tasks_get" {
		t.Errorf("recorded %+v, want the tasks_get", got)
	}

	failing := &fakeAuditor{err: errors.New("database is down")}
	w = startWorker(t, func(c *Config) { c.Auditor = failing })
	_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != status.Convert(errUnaudited).Message() {
		t.Errorf("GetTask with a failing auditor = %v, want Unavailable saying to try again", err)
	}
	if n := len(w.logs.find("worker: audit events not recorded; their calls fail", map[string]string{"err": "database is down"})); n != 1 {
		t.Errorf("%d warnings about the failed write, want 1", n)
	}

	// A batch that runs out of its own time is no end of the call's
	// context: the call, answered or failing, is not answered.
	late := &fakeAuditor{err: fmt.Errorf("audit: insert: %w", context.DeadlineExceeded)}
	w = startWorker(t, func(c *Config) { c.Auditor = late })
	w.board.errs["T-9"] = domainerr.New(domainerr.NotFound, "No task T-9 in tenant acme")
	for _, ref := range []string{"T-1", "T-9"} {
		_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: ref})
		if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != status.Convert(errUnaudited).Message() {
			t.Errorf("GetTask(%s) with a batch out of time = %v, want Unavailable saying to try again", ref, err)
		}
	}
}

// TestAuditFullQueueWaits: calls that find the queue full wait for room
// and are all recorded: none is dropped.
func TestAuditFullQueueWaits(t *testing.T) {
	a := heldAuditor()
	w := startWorker(t, func(c *Config) {
		c.Auditor = a
		c.AuditQueue = 1
	})
	const calls = 6
	// The first call's batch is being written before the others come, so
	// it holds that call alone (calls already waiting would join it), and
	// the queue fills behind it.
	dones := []<-chan error{getTaskAsync(w, asCaller("read"), "T-0")}
	<-a.entered
	for i := 1; i < calls; i++ {
		dones = append(dones, getTaskAsync(w, asCaller("read"), fmt.Sprint("T-", i)))
	}
	poll.Until(t, 10*time.Second, "the queue to fill", func() bool { return len(w.srv.audit.queue) == 1 })
	close(a.hold)
	for i, done := range dones {
		if err := <-done; err != nil {
			t.Errorf("call %d = %v, want success", i, err)
		}
	}
	if n := len(a.recorded()); n != calls {
		t.Errorf("%d events recorded of %d calls, want every one", n, calls)
	}
}

// TestAuditCancelledWait: a call cancelled while it waits for its row
// ends with Canceled, and its event is written all the same.
func TestAuditCancelledWait(t *testing.T) {
	a := heldAuditor()
	w := startWorker(t, func(c *Config) { c.Auditor = a })
	first := getTaskAsync(w, asCaller("read"), "T-1")
	<-a.entered
	ctx, cancel := context.WithCancel(asCaller("read"))
	second := getTaskAsync(w, ctx, "T-2")
	poll.Until(t, 10*time.Second, "the second event to queue", func() bool { return len(w.srv.audit.queue) == 1 })
	cancel()
	if err := <-second; status.Code(err) != codes.Canceled {
		t.Errorf("cancelled GetTask = %v, want Canceled", err)
	}
	close(a.hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the cancelled call's event", func() bool { return len(a.recorded()) == 2 })
}

// TestAuditGroupCommit: events that queue while a batch is written are
// written together in the next one, each call answered after its own.
func TestAuditGroupCommit(t *testing.T) {
	a := heldAuditor()
	w := startWorker(t, func(c *Config) { c.Auditor = a })
	dones := []<-chan error{getTaskAsync(w, asCaller("read"), "T-0")}
	<-a.entered
	for i := 1; i <= 5; i++ {
		dones = append(dones, getTaskAsync(w, asCaller("read"), fmt.Sprint("T-", i)))
	}
	poll.Until(t, 10*time.Second, "five events to queue", func() bool { return len(w.srv.audit.queue) == 5 })
	close(a.hold)
	for _, done := range dones {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if fmt.Sprint(a.batches) != "[1 5]" {
		t.Errorf("batches of %v events, want [1 5]: the five that queued during the first write in one", a.batches)
	}
}

// tenantExists tells whether db holds a tenant of a slug: what the
// testBoard's CreateTask writes.
func tenantExists(t *testing.T, db *ent.Client) func(slug string) bool {
	return func(slug string) bool {
		ok, err := db.Tenant.Query().Where(tenant.Slug(slug)).Exist(privacy.DecisionContext(context.Background(), privacy.Allow))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
}

// TestAuditWriteInItsTransaction: a write's event is written in the
// write's own transaction: it commits with the write, and a failing
// audit row rolls the write back. A write that rolls back on its own is
// recorded as a failure, outside it.
func TestAuditWriteInItsTransaction(t *testing.T) {
	db := storetest.Open(t, storetest.SQLite)
	w, res, a := startAuditWorker(t, nil)
	w.board.db = db
	res.setRole(7, "member")
	write := asCaller("read", "comment", "write")
	exists := tenantExists(t, db)

	if _, err := w.client.CreateTask(write, &taskwirev1.CreateTaskRequest{Title: "written"}); err != nil {
		t.Fatalf("CreateTask = %v", err)
	}
	if got := a.recorded(); !exists("written") || a.inTx != 1 || len(got) != 1 || got[0].Outcome != audit.OutcomeOK || len(a.batches) != 0 {
		t.Errorf("a committed write: %d events in its transaction, %d batches, %+v; want its one ok event in its transaction", a.inTx, len(a.batches), got)
	}

	_, err := w.client.CreateTask(write, &taskwirev1.CreateTaskRequest{Title: "rolled-back", Board: "fail"})
	if status.Code(err) != codes.InvalidArgument || exists("rolled-back") {
		t.Fatalf("failing CreateTask = %v (written: %v), want InvalidArgument and nothing written", err, exists("rolled-back"))
	}
	if got := a.recorded(); a.inTx != 1 || len(got) != 2 || got[1].Outcome != "InvalidArgument" || got[1].Error != `no board "…"` {
		t.Errorf("a rolled-back write: %d in transactions, events %+v; want its failure recorded outside", a.inTx, got)
	}

	a.mu.Lock()
	a.err = domainerr.New(domainerr.Unavailable, "audit table locked")
	a.mu.Unlock()
	_, err = w.client.CreateTask(write, &taskwirev1.CreateTaskRequest{Title: "unaudited"})
	if err == nil || exists("unaudited") {
		t.Errorf("CreateTask whose audit row fails = %v (written: %v), want an error and nothing written", err, exists("unaudited"))
	}
}

// TestAuditStop: Stop writes the events of calls still waiting, and a
// call that ends after it fails instead of going unrecorded.
func TestAuditStop(t *testing.T) {
	a := heldAuditor()
	l := newAuditLog(a, 0, slog.New(slog.DiscardHandler))
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			errs[i] = l.record(context.Background(), audit.Event{Tenant: "acme", Method: fmt.Sprint("m", i)})
		})
		if i == 0 {
			<-a.entered // the first batch holds the first event alone
		}
	}
	poll.Until(t, 10*time.Second, "two events to queue", func() bool { return len(l.queue) == 2 })
	stopped := make(chan struct{})
	go func() { l.stop(); close(stopped) }()
	close(a.hold)
	<-stopped
	wg.Wait()
	if err := errors.Join(errs...); err != nil || len(a.recorded()) != 3 {
		t.Errorf("waiting calls at stop = %v with %d events written, want all 3 written", err, len(a.recorded()))
	}
	if err := l.record(context.Background(), audit.Event{Tenant: "acme", Method: "late"}); !errors.Is(err, errAuditStopped) {
		t.Errorf("record after stop = %v, want errAuditStopped", err)
	}
}

// invalidAuditor fails every batch holding an event of method "bad" as
// not valid, as audit.Store does.
type invalidAuditor struct{ fakeAuditor }

func (f *invalidAuditor) RecordAll(ctx context.Context, events []audit.Event) (int, error) {
	for _, e := range events {
		if e.Method == "bad" {
			return 0, domainerr.New(domainerr.Invalid, "audit event of %q: outcome: empty", e.Method)
		}
	}
	return f.fakeAuditor.RecordAll(ctx, events)
}

// TestAuditBadEventFailsAlone: an event that cannot be written fails its
// own call, not those batched with it.
func TestAuditBadEventFailsAlone(t *testing.T) {
	a := &invalidAuditor{}
	l := &auditLog{auditor: a, log: slog.New(slog.DiscardHandler)}
	var b batch
	for _, m := range []string{"good1", "bad", "good2"} {
		b.add(pendingEvent{e: audit.Event{Tenant: "acme", Method: m}, written: make(chan error, 1)})
	}
	l.write(context.Background(), b)
	for i, e := range b.events {
		if err := <-b.written[i]; (err != nil) != (e.Method == "bad") {
			t.Errorf("event %s: written = %v", e.Method, err)
		}
	}
	if n := len(a.recorded()); n != 2 {
		t.Errorf("%d events written, want the 2 good ones", n)
	}
}

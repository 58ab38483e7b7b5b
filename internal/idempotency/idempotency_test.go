package idempotency_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/idempotencykey"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

const method = taskwirev1.BoardService_AddContextNote_FullMethodName

// fixture is a tenant whose writes create boards, so a test can count how
// often a write really ran.
type fixture struct {
	client *ent.Client
	ctx    context.Context // scoped to the tenant
	caller idempotency.Caller
	runs   atomic.Int32
}

func newFixture(t *testing.T, c *ent.Client) *fixture {
	t.Helper()
	tn, err := c.Tenant.Create().SetSlug("acme").SetName("Acme").Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{client: c, ctx: tenantscope.NewContext(context.Background(), tn.ID), caller: idempotency.Caller{TenantID: tn.ID, MemberID: 7}}
}

// addBoard is the write under test: it creates a board named by the
// request's body and answers with the board's slug as the note's body.
func (f *fixture) addBoard(req *taskwirev1.AddContextNoteRequest) (*taskwirev1.AddContextNoteResponse, error) {
	return idempotency.Do(f.ctx, f.client, f.caller, method, req, func(tx *ent.Tx) (*taskwirev1.AddContextNoteResponse, error) {
		f.runs.Add(1)
		slug := fmt.Sprintf("%s-%d", req.GetBody(), f.boards(tx.Client()))
		if _, err := tx.Board.Create().SetTenantID(f.caller.TenantID).SetSlug(slug).SetName(slug).Save(f.ctx); err != nil {
			return nil, err
		}
		if req.GetBody() == "fail" {
			return nil, domainerr.New(domainerr.Invalid, "failing on purpose")
		}
		return &taskwirev1.AddContextNoteResponse{Note: &taskwirev1.ContextNote{Body: slug}}, nil
	})
}

func (f *fixture) boards(c *ent.Client) int {
	return c.Board.Query().Where(board.TenantID(f.caller.TenantID)).CountX(f.ctx)
}

func (f *fixture) keys(t *testing.T) int {
	t.Helper()
	n, err := f.client.IdempotencyKey.Query().Where(idempotencykey.TenantID(f.caller.TenantID)).Count(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRetryReturnsFirstResult(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		req := &taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: "k-1"}
		first, err := f.addBoard(req)
		if err != nil {
			t.Fatalf("Do(k-1) = %v", err)
		}
		again, err := f.addBoard(proto.Clone(req).(*taskwirev1.AddContextNoteRequest))
		if err != nil {
			t.Fatalf("Do(k-1) retried = %v", err)
		}
		if !proto.Equal(first, again) || first.GetNote().GetBody() != "b-0" {
			t.Errorf("Do(k-1) retried = %v, want the first result %v (b-0)", again, first)
		}
		if n := f.boards(c); n != 1 || f.runs.Load() != 1 {
			t.Errorf("after a retry: %d boards, write ran %d times; want 1 and 1", n, f.runs.Load())
		}

		// Without a key every call writes.
		for range 2 {
			if _, err := f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "b"}); err != nil {
				t.Fatal(err)
			}
		}
		// Another member's key of the same name is another key.
		f.caller.MemberID++
		if r, err := f.addBoard(req); err != nil || r.GetNote().GetBody() != "b-3" {
			t.Errorf("Do(k-1) by another member = %v, %v, want a new write b-3", r, err)
		}
		if n := f.boards(c); n != 4 {
			t.Errorf("boards = %d, want 4", n)
		}
	})
}

func TestSameKeyOtherArguments(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		if _, err := f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: "k"}); err != nil {
			t.Fatal(err)
		}
		_, err := f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "other", IdempotencyKey: "k"})
		if domainerr.KindOf(err) != domainerr.Conflict || !strings.Contains(domainerr.Message(err), "new key") {
			t.Errorf("Do(k, other body) = %v, want a conflict saying to use a new key", err)
		}
		// The same key for another method is refused too.
		_, err = idempotency.Do(f.ctx, c, f.caller, taskwirev1.BoardService_AddComment_FullMethodName,
			&taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: "k"},
			func(*ent.Tx) (*taskwirev1.AddContextNoteResponse, error) {
				t.Error("write ran for a key used by another method")
				return nil, nil
			})
		if domainerr.KindOf(err) != domainerr.Conflict {
			t.Errorf("Do(k, other method) = %v, want a conflict", err)
		}
		if n := f.boards(c); n != 1 {
			t.Errorf("boards = %d, want 1", n)
		}
	})
}

func TestFailedWriteRecordsNothing(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		req := &taskwirev1.AddContextNoteRequest{Body: "fail", IdempotencyKey: "k"}
		for i := range 2 {
			_, err := f.addBoard(req)
			if domainerr.KindOf(err) != domainerr.Invalid {
				t.Fatalf("Do(failing write) #%d = %v, want the write's own error", i+1, err)
			}
		}
		if n, k := f.boards(c), f.keys(t); n != 0 || k != 0 || f.runs.Load() != 2 {
			t.Errorf("after two failed writes: %d boards, %d keys, %d runs; want 0, 0 and 2 (a failure is retried for real)", n, k, f.runs.Load())
		}
	})
}

func TestConcurrentRetries(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		const callers = 8
		var wg sync.WaitGroup
		results := make([]*taskwirev1.AddContextNoteResponse, callers)
		errs := make([]error, callers)
		for i := range callers {
			wg.Go(func() {
				results[i], errs[i] = f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: "same"})
			})
		}
		wg.Wait()
		for i := range callers {
			if errs[i] != nil {
				t.Fatalf("concurrent Do(same) #%d = %v", i, errs[i])
			}
			if !proto.Equal(results[i], results[0]) {
				t.Errorf("concurrent Do(same) #%d = %v, want %v like the others", i, results[i], results[0])
			}
		}
		if n := f.boards(c); n != 1 {
			t.Errorf("boards after %d concurrent calls with one key = %d, want 1", callers, n)
		}
	})
}

func TestKeyTooLong(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		_, err := f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: strings.Repeat("é", idempotency.MaxKeyLen+1)})
		if domainerr.KindOf(err) != domainerr.Invalid || f.runs.Load() != 0 {
			t.Errorf("Do(key of %d characters) = %v after %d runs, want invalid and no run", idempotency.MaxKeyLen+1, err, f.runs.Load())
		}
		if _, err := f.addBoard(&taskwirev1.AddContextNoteRequest{Body: "b", IdempotencyKey: strings.Repeat("é", idempotency.MaxKeyLen)}); err != nil {
			t.Errorf("Do(key of %d characters) = %v, want it accepted", idempotency.MaxKeyLen, err)
		}
	})
}

func TestDigest(t *testing.T) {
	base := &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "c-1", IdempotencyKey: "k"}
	same := []*taskwirev1.DeleteTaskRequest{
		{Ref: "T-1", Confirmation: "c-2", IdempotencyKey: "k"}, // a retry gets a new confirmation
		{Ref: "T-1", Confirmation: "c-1", IdempotencyKey: "other"},
	}
	for _, r := range same {
		if !bytes.Equal(idempotency.Digest(base), idempotency.Digest(r)) {
			t.Errorf("Digest(%v) != Digest(%v), want equal: only the arguments count", r, base)
		}
	}
	other := []proto.Message{
		&taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: "c-1", IdempotencyKey: "k"},
		&taskwirev1.DeleteTaskRequest{Ref: "T-1", ExpectedVersion: 3, Confirmation: "c-1", IdempotencyKey: "k"},
		&taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: "c-1", IdempotencyKey: "k"},
	}
	for _, r := range other {
		if bytes.Equal(idempotency.Digest(base), idempotency.Digest(r)) {
			t.Errorf("Digest(%v) == Digest(%v), want different", r, base)
		}
	}
}

// TestNoKeyField shows a request without an idempotency_key field is
// written every time.
func TestNoKeyField(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		f := newFixture(t, c)
		for range 2 {
			_, err := idempotency.Do(f.ctx, c, f.caller, method, &taskwirev1.GetTaskRequest{Ref: "T-1"},
				func(tx *ent.Tx) (*taskwirev1.GetTaskResponse, error) {
					f.runs.Add(1)
					return &taskwirev1.GetTaskResponse{}, nil
				})
			if err != nil {
				t.Fatal(err)
			}
		}
		if f.runs.Load() != 2 || f.keys(t) != 0 {
			t.Errorf("Do(no key field) twice: %d runs, %d keys; want 2 and 0", f.runs.Load(), f.keys(t))
		}
	})
}

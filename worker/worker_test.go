package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/internal/store"
)

// testBoard is a small BoardService whose behaviour tests choose through
// the refs they ask for.
type testBoard struct {
	taskwirev1.UnimplementedBoardServiceServer
	errs    map[string]error // GetTask ref → error to return
	entered chan struct{}    // GetTask "block" signals it started
	release chan struct{}    // and waits for this (or its context)
	reports []float64        // ImportTasks reports these progress values
	db      *ent.Client      // when set, CreateTask writes a tenant named by the title
}

func newTestBoard() *testBoard {
	return &testBoard{errs: map[string]error{}, entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (b *testBoard) GetTask(ctx context.Context, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	switch req.GetRef() {
	case "panic":
		panic("boom")
	case "block":
		b.entered <- struct{}{}
		select {
		case <-b.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "whoami":
		c, _ := identity.FromContext(ctx)
		return &taskwirev1.GetTaskResponse{Task: &taskwirev1.Task{Title: fmt.Sprintf("%s/%d/%s", c.Tenant, c.Member, c.TokenID)}}, nil
	}
	if err, ok := b.errs[req.GetRef()]; ok {
		return nil, err
	}
	return &taskwirev1.GetTaskResponse{Task: &taskwirev1.Task{Ref: req.GetRef()}}, nil
}

// CreateTask, with db, writes a tenant whose slug is the title in one
// transaction, and fails (rolling it back) when the board is "fail".
func (b *testBoard) CreateTask(ctx context.Context, req *taskwirev1.CreateTaskRequest) (*taskwirev1.CreateTaskResponse, error) {
	if b.db != nil {
		err := store.WithTx(ctx, b.db, func(tx *ent.Tx) error {
			if err := tx.Tenant.Create().SetSlug(req.GetTitle()).SetName("x").Exec(privacy.DecisionContext(ctx, privacy.Allow)); err != nil {
				return err
			}
			if req.GetBoard() == "fail" {
				return domainerr.New(domainerr.Invalid, "no board %q", req.GetBoard())
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return &taskwirev1.CreateTaskResponse{Task: &taskwirev1.Task{Ref: "T-1", Title: req.GetTitle()}}, nil
}

func (b *testBoard) AddComment(ctx context.Context, req *taskwirev1.AddCommentRequest) (*taskwirev1.AddCommentResponse, error) {
	return &taskwirev1.AddCommentResponse{Comment: &taskwirev1.Comment{Task: req.GetRef(), Body: req.GetBody()}}, nil
}

func (b *testBoard) ImportTasks(ctx context.Context, req *taskwirev1.ImportTasksRequest) (*taskwirev1.ImportTasksResponse, error) {
	for _, done := range b.reports {
		progress.Report(ctx, done, 3, fmt.Sprintf("imported %g of 3", done))
	}
	return &taskwirev1.ImportTasksResponse{Imported: int32(len(req.GetTasks()))}, nil
}

// testWorker is a Server on 127.0.0.1:0 with a client connected to it.
type testWorker struct {
	srv    *Server
	board  *testBoard
	logs   *logCapture
	conn   *grpc.ClientConn
	client taskwirev1.BoardServiceClient
}

// startWorker serves a testBoard; edit may change the config first.
func startWorker(t *testing.T, edit func(*Config)) *testWorker {
	t.Helper()
	w := &testWorker{board: newTestBoard(), logs: &logCapture{}}
	cfg := Config{
		Logger:   slog.New(w.logs),
		Register: []func(grpc.ServiceRegistrar){func(r grpc.ServiceRegistrar) { taskwirev1.RegisterBoardServiceServer(r, w.board) }},
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.srv = srv
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	w.conn, err = grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	w.client = taskwirev1.NewBoardServiceClient(w.conn)
	t.Cleanup(func() {
		w.conn.Close()
		srv.Stop(context.Background())
		// ErrServerStopped: Stop came before Serve began, in a test whose
		// calls never reached the server.
		if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			t.Errorf("Serve = %v, want nil after Stop", err)
		}
	})
	return w
}

// asCaller returns a context whose calls carry the identity of member 7 of
// acme with the given scopes, as the front door would send it.
func asCaller(scopes ...string) context.Context {
	c := identity.Caller{Tenant: "acme", Member: 7, Scopes: scopes, TokenID: "tok-secret-id"}
	return identity.AppendToOutgoing(context.Background(), c)
}

// logCapture is a slog.Handler keeping every record, attributes flattened.
type logCapture struct {
	mu      sync.Mutex
	records []logRecord
}

type logRecord struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

func (h *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCapture) WithGroup(string) slog.Handler            { return h }

func (h *logCapture) WithAttrs(as []slog.Attr) slog.Handler {
	return &withAttrs{logCapture: h, attrs: as}
}

func (h *logCapture) Handle(_ context.Context, r slog.Record) error {
	return h.add(r, nil)
}

func (h *logCapture) add(r slog.Record, pre []slog.Attr) error {
	rec := logRecord{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	for _, a := range pre {
		rec.Attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, rec)
	return nil
}

type withAttrs struct {
	*logCapture
	attrs []slog.Attr
}

func (w *withAttrs) Handle(_ context.Context, r slog.Record) error {
	return w.add(r, w.attrs)
}

// find returns the records with message msg whose attributes include want.
func (h *logCapture) find(msg string, want map[string]string) []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logRecord
	for _, r := range h.records {
		if r.Msg == msg && matches(r.Attrs, want) {
			out = append(out, r)
		}
	}
	return out
}

func matches(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func TestNewRefusesBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no logger":      {},
		"negative drain": {Logger: slog.New(slog.DiscardHandler), DrainTimeout: -time.Second},
		"nil register":   {Logger: slog.New(slog.DiscardHandler), Register: []func(grpc.ServiceRegistrar){nil}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%s) = nil error, want an error", name)
		}
	}
}

func TestIdentityReachesHandler(t *testing.T) {
	w := startWorker(t, nil)
	resp, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.GetTask().GetTitle(), "acme/7/tok-secret-id"; got != want {
		t.Errorf("caller seen by handler = %q, want %q", got, want)
	}
}

func TestCallRecord(t *testing.T) {
	w := startWorker(t, nil)
	ctx := metadata.AppendToOutgoingContext(asCaller("read"), MDRequestID, "req-42")
	if _, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-secret-ref"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"method": taskwirev1.BoardService_GetTask_FullMethodName,
		"tenant": "acme", "member": "7", "code": "OK", "request_id": "req-42"}
	var recs []logRecord
	poll.Until(t, 10*time.Second, "the call's log record", func() bool { recs = w.logs.find("rpc", want); return len(recs) > 0 })
	if len(recs) != 1 {
		t.Fatalf("got %d records for one call, want 1", len(recs))
	}
	if _, ok := recs[0].Attrs["duration"]; !ok {
		t.Errorf("record %v has no duration", recs[0].Attrs)
	}
	for k, v := range recs[0].Attrs {
		if v == "tok-secret-id" || v == "T-secret-ref" {
			t.Errorf("record attribute %s = %q: tokens and request contents must not be logged", k, v)
		}
	}
}

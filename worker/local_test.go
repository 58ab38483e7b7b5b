package worker

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/progress"
)

type ctxKey struct{}

// countingConn counts the calls that fell back to the gRPC connection.
type countingConn struct {
	grpc.ClientConnInterface
	invokes, streams int
}

func (c *countingConn) Invoke(ctx context.Context, method string, req, reply any, opts ...grpc.CallOption) error {
	c.invokes++
	return c.ClientConnInterface.Invoke(ctx, method, req, reply, opts...)
}

func (c *countingConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	c.streams++
	return c.ClientConnInterface.NewStream(ctx, desc, method, opts...)
}

// A call through Local is the call over gRPC, without gRPC: the worker's
// checks run (the internal key comes from the credentials, the caller from
// metadata, never from the caller's context values), answers and errors
// come back as they would over the wire, the progress count in the
// trailer, a cancelled call ends Canceled; streams and what the worker
// does not serve go over the connection.
func TestLocalCallsAreGRPCCalls(t *testing.T) {
	const key = "front-door-secret"
	url := natstest.URL(t)
	w := startWorker(t, func(c *Config) { c.InternalKey = key; c.NATS = natstest.Connect(t, url) })
	fallback := &countingConn{ClientConnInterface: w.conn}
	var seen []string
	record := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		seen = append(seen, info.FullMethod)
		if ctx.Value(ctxKey{}) != nil {
			t.Errorf("the worker saw a value of the caller's context")
		}
		return h(ctx, req)
	}
	local, err := w.srv.Local(LocalConfig{Fallback: fallback, Credentials: identity.InternalKey(key), Interceptors: []grpc.UnaryServerInterceptor{record}})
	if err != nil {
		t.Fatal(err)
	}
	client := taskwirev1.NewBoardServiceClient(local)
	caller := context.WithValue(asCaller("read", "write"), ctxKey{}, "front door only")

	resp, err := client.GetTask(caller, &taskwirev1.GetTaskRequest{Ref: "whoami"})
	if err != nil || resp.GetTask().GetTitle() != "acme/7/tok-secret-id" {
		t.Fatalf("GetTask(whoami) = %v, %v; want the caller named in metadata", resp, err)
	}
	if len(seen) != 1 || seen[0] != taskwirev1.BoardService_GetTask_FullMethodName {
		t.Errorf("outer interceptor saw %q, want the one call", seen)
	}

	// Without the credentials, the worker refuses, as over gRPC.
	bare, err := w.srv.Local(LocalConfig{Fallback: fallback})
	if err != nil {
		t.Fatal(err)
	}
	_, localErr := taskwirev1.NewBoardServiceClient(bare).GetTask(caller, &taskwirev1.GetTaskRequest{Ref: "T-1"})
	_, grpcErr := w.client.GetTask(caller, &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if status.Code(localErr) == codes.OK || status.Code(localErr) != status.Code(grpcErr) || status.Convert(localErr).Message() != status.Convert(grpcErr).Message() {
		t.Errorf("without the internal key: local %v, gRPC %v; want the same refusal", localErr, grpcErr)
	}

	// A handler's error arrives as the status gRPC would carry.
	w.board.errs["T-9"] = errors.New("plain failure")
	_, localErr = client.GetTask(caller, &taskwirev1.GetTaskRequest{Ref: "T-9"})
	withKey := metadata.AppendToOutgoingContext(caller, identity.MDInternalKey, key)
	_, grpcErr = w.client.GetTask(withKey, &taskwirev1.GetTaskRequest{Ref: "T-9"})
	if status.Code(localErr) != status.Code(grpcErr) || status.Convert(localErr).Message() != status.Convert(grpcErr).Message() {
		t.Errorf("failing handler: local %v, gRPC %v; want the same status", localErr, grpcErr)
	}

	// Progress: the count comes back in the trailer.
	w.board.reports = []float64{1, 2, 3}
	var trailer metadata.MD
	ctx := metadata.AppendToOutgoingContext(caller, progress.MDSubject, progress.SubjectPrefix+"fd.local")
	if _, err := client.ImportTasks(ctx, &taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{{Title: "a"}}}, grpc.Trailer(&trailer)); err != nil {
		t.Fatal(err)
	}
	if got := trailer.Get(progress.TrailerCount); len(got) != 1 || got[0] != "3" {
		t.Errorf("trailer %s = %q, want [3]", progress.TrailerCount, got)
	}

	// Cancelled while the handler waits: Canceled, and the handler ends.
	ctx, cancel := context.WithCancel(caller)
	done := make(chan error, 1)
	go func() {
		_, err := client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "block"})
		done <- err
	}()
	<-w.board.entered
	cancel()
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Errorf("cancelled call = %v, want Canceled", err)
	}

	if fallback.invokes != 0 || fallback.streams != 0 {
		t.Errorf("unary calls of the worker's services fell back to gRPC %d times", fallback.invokes)
	}
	// What the worker does not serve goes over the connection.
	health := grpc.ClientConnInterface(local)
	var out taskwirev1.GetTaskResponse
	_ = health.Invoke(withKey, "/taskwire.v1.NoSuchService/Get", &taskwirev1.GetTaskRequest{}, &out)
	if fallback.invokes != 1 {
		t.Errorf("a method the worker does not hold: %d calls over gRPC, want 1", fallback.invokes)
	}
}

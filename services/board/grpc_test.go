package board_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/worker/workertest"
)

// TestRegister serves the service over in-memory gRPC, with the caller
// carried in metadata as the worker does.
func TestRegister(t *testing.T) {
	e := newEnv(t, storetest.Open(t, storetest.SQLite))
	srv := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		c, err := identity.FromIncoming(ctx)
		if err != nil {
			return nil, err
		}
		return h(identity.NewContext(ctx, c), req)
	}))
	e.svc.Register(srv)
	conn := workertest.Dial(t, srv.Serve, srv.Stop)
	client := taskwirev1.NewBoardServiceClient(conn)

	claude, _ := identity.FromContext(e.claude)
	ctx := identity.AppendToOutgoing(context.Background(), claude)
	created, err := client.CreateTask(ctx, &taskwirev1.CreateTaskRequest{Title: "over gRPC", Assignees: []string{"me"}})
	if err != nil {
		t.Fatalf("CreateTask over gRPC = %v", err)
	}
	if created.Task.Ref != "T-1" || created.Task.CreatedBy != "claude" || len(created.Task.Assignees) != 1 || created.Task.Assignees[0] != "claude" {
		t.Errorf("CreateTask over gRPC = %v, want T-1 by and for claude", created.Task)
	}
	got, err := client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if err != nil || got.Task.Title != "over gRPC" {
		t.Errorf("GetTask over gRPC = %v, %v, want the task", got, err)
	}
}

package tests

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/node/nodetest"
)

// TestWorkerPortNeedsInternalKey: the worker listens on loopback, where
// any local process can connect; naming a caller in metadata must not be
// enough to act as them.
func TestWorkerPortNeedsInternalKey(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	conn, err := grpc.NewClient(h.Sys.WorkerAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	forged := identity.AppendToOutgoing(context.Background(), identity.Caller{Tenant: "default", Member: 1, Scopes: []string{"write"}})
	_, err = taskwirev1.NewBoardServiceClient(conn).CreateTask(forged, &taskwirev1.CreateTaskRequest{Title: "forged"})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("CreateTask straight to the worker port = %v, want Unauthenticated", err)
	}
}

package worker

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// operatorBoard answers CreateTask (a write tool) with whether the call
// reached it as an operator's.
type operatorBoard struct {
	taskwirev1.UnimplementedBoardServiceServer
}

func (operatorBoard) CreateTask(ctx context.Context, _ *taskwirev1.CreateTaskRequest) (*taskwirev1.CreateTaskResponse, error) {
	return &taskwirev1.CreateTaskResponse{Task: &taskwirev1.Task{Title: strconv.FormatBool(identity.IsOperator(ctx))}}, nil
}

// noAccess refuses every caller, as a resolver would for an unknown one.
type noAccess struct{}

func (noAccess) Resolve(context.Context, identity.Caller) (identity.Access, error) {
	return identity.Access{}, errors.New("no such member")
}

// TestOperatorCalls: the operator mark replaces a caller only for the
// services that accept operators, only with the internal key, and skips
// the scope and role steps there; elsewhere it is refused.
func TestOperatorCalls(t *testing.T) {
	const key = "front-door-key"
	start := func(services ...string) taskwirev1.BoardServiceClient {
		w := startWorker(t, func(c *Config) {
			c.InternalKey = key
			c.Access = noAccess{}
			c.Tokens = &fakeTokens{}
			c.OperatorServices = services
			c.Register = []func(grpc.ServiceRegistrar){func(r grpc.ServiceRegistrar) {
				taskwirev1.RegisterBoardServiceServer(r, operatorBoard{})
			}}
		})
		return w.client
	}
	operator := identity.AppendOperatorToOutgoing(metadata.AppendToOutgoingContext(context.Background(), identity.MDInternalKey, key))
	forged := identity.AppendOperatorToOutgoing(context.Background())

	accepting := start(taskwirev1.BoardService_ServiceDesc.ServiceName)
	resp, err := accepting.CreateTask(operator, &taskwirev1.CreateTaskRequest{Title: "x"})
	if err != nil || resp.GetTask().GetTitle() != "true" {
		t.Errorf("an operator call of an accepting service = %v, %v; want it through as an operator's", resp, err)
	}
	if _, err := accepting.CreateTask(forged, &taskwirev1.CreateTaskRequest{Title: "x"}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an operator mark without the internal key = %v, want Unauthenticated", err)
	}

	other := start()
	_, err = other.CreateTask(operator, &taskwirev1.CreateTaskRequest{Title: "x"})
	if status.Code(err) != codes.PermissionDenied || status.Convert(err).Message() != "platform operators act through the admin API only" {
		t.Errorf("an operator call of another service = %v, want PermissionDenied naming the admin API", err)
	}
}

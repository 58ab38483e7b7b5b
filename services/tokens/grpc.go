package tokens

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// Register adds TokenService, served from s, to a gRPC server. It is an
// internal service: the worker serves it to front doors, never as a tool,
// and its method (taskwirev1.TokenService_ListRevocations_FullMethodName)
// acts for no caller.
func (s *Store) Register(r grpc.ServiceRegistrar) {
	taskwirev1.RegisterTokenServiceServer(r, tokenService{store: s})
}

// tokenService implements taskwirev1.TokenServiceServer.
type tokenService struct {
	taskwirev1.UnimplementedTokenServiceServer
	store *Store
}

// ListRevocations implements taskwirev1.TokenServiceServer.
func (t tokenService) ListRevocations(ctx context.Context, _ *taskwirev1.ListRevocationsRequest) (*taskwirev1.ListRevocationsResponse, error) {
	live, err := t.store.LiveRevocations(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListRevocationsResponse{Tokens: make([]*taskwirev1.RevokedToken, 0, len(live))}
	for jti, exp := range live {
		resp.Tokens = append(resp.Tokens, &taskwirev1.RevokedToken{Jti: jti, ExpireTime: timestamppb.New(exp)})
	}
	return resp, nil
}

// Loader returns the live revocations, token id → expiry, as
// Store.LiveRevocations does.
type Loader func(ctx context.Context) (map[string]time.Time, error)

// FromWorker is a Loader for a front door without a database: it asks a
// worker over conn (TokenService.ListRevocations).
func FromWorker(conn grpc.ClientConnInterface) Loader {
	client := taskwirev1.NewTokenServiceClient(conn)
	return func(ctx context.Context) (map[string]time.Time, error) {
		resp, err := client.ListRevocations(ctx, &taskwirev1.ListRevocationsRequest{})
		if err != nil {
			return nil, fmt.Errorf("tokens: list revocations from a worker: %w", err)
		}
		out := make(map[string]time.Time, len(resp.GetTokens()))
		for _, t := range resp.GetTokens() {
			if t.GetJti() != "" && t.GetExpireTime().IsValid() {
				out[t.GetJti()] = t.GetExpireTime().AsTime()
			}
		}
		return out, nil
	}
}

package worker

import (
	"context"
	"errors"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/services/identity"
)

// fakeTokens revokes the jtis it lists and fails with err when set.
type fakeTokens struct {
	mu      sync.Mutex
	revoked map[string]bool
	err     error
	touched []string
}

func (f *fakeTokens) IsRevoked(_ context.Context, jti string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.revoked[jti], f.err
}

func (f *fakeTokens) Touch(_ context.Context, jti string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.touched = append(f.touched, jti)
	return nil
}

func TestRevokedTokenRefused(t *testing.T) {
	tokens := &fakeTokens{revoked: map[string]bool{"stolen": true}}
	w := startWorker(t, func(c *Config) { c.Tokens = tokens })
	call := func(jti string) error {
		ctx := identity.AppendToOutgoing(context.Background(), identity.Caller{Tenant: "acme", Member: 7, Scopes: []string{"read"}, TokenID: jti})
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		return err
	}
	if err := call("stolen"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a revoked token: %v, want Unauthenticated", err)
	}
	if err := call("good"); status.Code(err) == codes.Unauthenticated {
		t.Errorf("a live token: %v, want it through", err)
	}
	if len(tokens.touched) != 1 || tokens.touched[0] != "good" {
		t.Errorf("touched %q, want only the live token", tokens.touched)
	}
	tokens.err = errors.New("database away")
	if err := call("good"); status.Code(err) != codes.Unavailable {
		t.Errorf("the check failing: %v, want Unavailable (never let a token through unchecked)", err)
	}
}

func TestUnnamedMethodNeedsOnlyTheKey(t *testing.T) {
	const key = "front-door-key"
	w := startWorker(t, func(c *Config) {
		c.InternalKey = key
		c.Tokens = &fakeTokens{}
		c.Unnamed = []string{taskwirev1.BoardService_ListBoards_FullMethodName}
	})
	withKey := metadata.AppendToOutgoingContext(context.Background(), identity.MDInternalKey, key)
	if _, err := w.client.ListBoards(withKey, &taskwirev1.ListBoardsRequest{}); status.Code(err) == codes.Unauthenticated {
		t.Errorf("an unnamed method with the key and no caller: %v, want it through", err)
	}
	if _, err := w.client.ListBoards(context.Background(), &taskwirev1.ListBoardsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("an unnamed method without the key: %v, want Unauthenticated", err)
	}
	if _, err := w.client.GetTask(withKey, &taskwirev1.GetTaskRequest{Ref: "T-1"}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("another method with the key but no caller: %v, want Unauthenticated", err)
	}
}

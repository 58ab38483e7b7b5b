package oauthedge

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// fakeOAuth is a worker's OAuthService from memory: it answers the token
// and revocation requests with what the test set, and records them.
type fakeOAuth struct {
	taskwirev1.UnimplementedOAuthServiceServer

	mu       sync.Mutex
	tokens   []*taskwirev1.TokenRequest
	revokes  []*taskwirev1.RevokeRequest
	regs     []*taskwirev1.RegisterClientRequest
	tokenErr *taskwirev1.OAuthError
}

func (f *fakeOAuth) Token(_ context.Context, req *taskwirev1.TokenRequest) (*taskwirev1.TokenResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, req)
	if f.tokenErr != nil {
		return &taskwirev1.TokenResponse{Error: f.tokenErr}, nil
	}
	return &taskwirev1.TokenResponse{AccessToken: "at-1", ExpiresIn: 3600, RefreshToken: "rt-1", Scope: "read comment"}, nil
}

func (f *fakeOAuth) Revoke(_ context.Context, req *taskwirev1.RevokeRequest) (*taskwirev1.RevokeResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revokes = append(f.revokes, req)
	if req.GetClientId() == "" {
		return &taskwirev1.RevokeResponse{Error: &taskwirev1.OAuthError{Code: "invalid_client", Description: "Name the client."}}, nil
	}
	return &taskwirev1.RevokeResponse{}, nil
}

func (f *fakeOAuth) RegisterClient(_ context.Context, req *taskwirev1.RegisterClientRequest) (*taskwirev1.RegisterClientResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.regs = append(f.regs, req)
	if req.GetMetadataJson() == `{}` {
		return &taskwirev1.RegisterClientResponse{Error: &taskwirev1.OAuthError{Code: "invalid_redirect_uri", Description: "Send redirect_uris."}}, nil
	}
	return &taskwirev1.RegisterClientResponse{ClientJson: `{"client_id":"dcr-1","redirect_uris":["http://127.0.0.1/cb"]}`}, nil
}

func (f *fakeOAuth) lastToken() *taskwirev1.TokenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tokens) == 0 {
		return nil
	}
	return f.tokens[len(f.tokens)-1]
}

// newTestEdge is an edge of publicURL in front of a fake worker.
func newTestEdge(t *testing.T, publicURL string, edit func(*Config)) (*Edge, *fakeOAuth) {
	t.Helper()
	f := &fakeOAuth{}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	taskwirev1.RegisterOAuthServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	cfg := Config{Conn: conn, PublicURL: publicURL, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, f
}

// workerRefusal is an OAuth error for the fake to answer.
type workerRefusal struct{ code, description string }

func (e workerRefusal) proto() *taskwirev1.OAuthError {
	return &taskwirev1.OAuthError{Code: e.code, Description: e.description}
}

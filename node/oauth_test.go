package node_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events/natstest"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/services/oauth"
)

// TestWorkerServesOAuth: a front door reaches the worker's OAuth server
// with the internal key and no caller, as a client registering has no
// token yet, and the worker applies its OAuth configuration.
func TestWorkerServesOAuth(t *testing.T) {
	key, err := authn.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := authn.NewIssuer(authn.IssuerConfig{Key: key, Issuer: "http://taskwire.test", Audience: "http://taskwire.test/api/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := node.NewWorker(node.WorkerConfig{
		DB: storetest.Open(t, storetest.SQLite), NATS: natstest.Connect(t, natstest.Start(t)), InternalKey: "front-door-key",
		Listen: "127.0.0.1:0", Drain: time.Second, Log: slog.New(slog.DiscardHandler), Issuer: issuer,
		OAuth: node.OAuthConfig{Clients: oauth.Clients{OnlyConfigured: true, Configured: []oauth.ConfiguredClient{
			{ClientID: "chatgpt", Name: "ChatGPT", RedirectURIs: []string{"https://chatgpt.com/cb"}},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(func() { w.Stop(context.Background()) })
	conn, err := grpc.NewClient(w.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), identity.MDInternalKey, "front-door-key")
	resp, err := taskwirev1.NewOAuthServiceClient(conn).RegisterClient(ctx, &taskwirev1.RegisterClientRequest{
		MetadataJson: `{"redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}`, ClientAddr: "192.0.2.1",
	})
	if err != nil {
		t.Fatalf("RegisterClient with no caller = %v, want an answer", err)
	}
	if resp.GetError().GetCode() != "access_denied" {
		t.Errorf("RegisterClient with only configured clients = %v, want access_denied", resp)
	}
}

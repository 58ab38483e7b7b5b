package node

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/stats"
)

// connCounter counts the connections a client opened.
type connCounter struct{ conns atomic.Int32 }

func (c *connCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (c *connCounter) HandleRPC(context.Context, stats.RPCStats) {}

func (c *connCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}

func (c *connCounter) HandleConn(_ context.Context, s stats.ConnStats) {
	if _, ok := s.(*stats.ConnBegin); ok {
		c.conns.Add(1)
	}
}

// TestMaxConnectionAge: a worker's --max-connection-age makes a client
// reconnect again and again (where a front door following a DNS name
// re-resolves it), and no call fails for it.
func TestMaxConnectionAge(t *testing.T) {
	srv := grpc.NewServer(Keepalive(100*time.Millisecond, time.Second)...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	var counter connCounter
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithStatsHandler(&counter))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)
	poll.Until(t, 10*time.Second, "the client to connect a third time", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// WaitForReady: a call made as a connection is replaced waits
		// for the next one, as the front door's round robin does.
		if _, err := client.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("health check while connections age out: %v", err)
		}
		return counter.conns.Load() >= 3
	})
}

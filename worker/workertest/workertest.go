// Package workertest serves gRPC in memory for tests: a real worker (its
// whole interceptor chain) or any server, reached over bufconn.
package workertest

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/taskwire/taskwire/worker"
)

// Dial runs serve on an in-memory listener and returns a connection to
// it; stop, the connection and the listener end with the test.
func Dial(t testing.TB, serve func(net.Listener) error, stop func()) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	go serve(lis)
	t.Cleanup(stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Start runs a worker of cfg in memory and returns a connection to it.
func Start(t testing.TB, cfg worker.Config) *grpc.ClientConn {
	t.Helper()
	srv, err := worker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Dial(t, srv.Serve, func() { srv.Stop(context.Background()) })
}

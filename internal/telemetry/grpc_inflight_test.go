package telemetry_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/telemetry"
)

// TestGRPCCallsInFlight: a call the worker is handling counts in
// taskwire_grpc_server_in_flight until it ends, and is then counted as
// handled. The call is a health watch, which stays open until the client
// cancels it, so what is open at the scrape does not depend on timing.
func TestGRPCCallsInFlight(t *testing.T) {
	tel := newTelemetry(t, telemetry.Config{})
	srv := grpc.NewServer(tel.GRPCServerOptions()...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil { // the handler is running now
		t.Fatal(err)
	}
	if got := scrape(t, tel); !strings.Contains(got, "taskwire_grpc_server_in_flight 1\n") {
		t.Fatalf("while a watch is open:\n%s", grepTaskwire(got))
	}
	cancel()
	poll.Until(t, 10*time.Second, "the ended watch to leave the in-flight gauge", func() bool {
		got := scrape(t, tel)
		return strings.Contains(got, "taskwire_grpc_server_in_flight 0\n") &&
			strings.Contains(got, `taskwire_grpc_server_handled_total{code="Canceled",method="/grpc.health.v1.Health/Watch"} 1`)
	})
}

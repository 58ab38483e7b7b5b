package worker

import (
	"context"
	"github.com/taskwire/taskwire/internal/poll"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// healthOf asks the server's health service in process, which still
// answers after the server has stopped.
func healthOf(t *testing.T, s *Server) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	resp, err := s.health.Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetStatus()
}

// blockedCall starts GetTask "block" and returns once the handler runs; the
// call's error arrives on the returned channel.
func blockedCall(t *testing.T, w *testWorker) <-chan error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "block"})
		errc <- err
	}()
	select {
	case <-w.board.entered:
	case err := <-errc:
		t.Fatalf("blocking call ended early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("blocking call never reached the handler")
	}
	return errc
}

func stopAsync(s *Server) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		s.Stop(context.Background())
		close(done)
	}()
	return done
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestStopLetsInFlightCallFinish(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.DrainTimeout = time.Minute })
	errc := blockedCall(t, w)
	stopped := stopAsync(w.srv)
	poll.Until(t, 10*time.Second, "health NOT_SERVING", func() bool { return healthOf(t, w.srv) == healthpb.HealthCheckResponse_NOT_SERVING })
	if closed(stopped) {
		t.Fatal("Stop returned while a call was in flight")
	}
	close(w.board.release)
	if err := <-errc; err != nil {
		t.Errorf("in-flight call = %v, want it to finish normally", err)
	}
	poll.Until(t, 10*time.Second, "Stop to return", func() bool { return closed(stopped) })
	if got := healthOf(t, w.srv); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health after Stop = %v, want NOT_SERVING", got)
	}
	_, err := w.client.GetTask(asCaller("read"), &taskwirev1.GetTaskRequest{Ref: "T-1"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("call after Stop = %v, want Unavailable", err)
	}
}

func TestStopCutsOffAfterDrainTimeout(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.DrainTimeout = 50 * time.Millisecond })
	errc := blockedCall(t, w)
	stopped := stopAsync(w.srv)
	poll.Until(t, 10*time.Second, "Stop to return after the drain timeout", func() bool { return closed(stopped) })
	if err := <-errc; status.Code(err) == codes.OK {
		t.Errorf("call cut off by Stop = %v, want an error", err)
	}
}

func TestStopEndsHealthWatch(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.DrainTimeout = time.Minute })
	watch, err := healthpb.NewHealthClient(w.conn).Watch(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first Watch update = %v, %v; want SERVING", resp, err)
	}
	stopped := stopAsync(w.srv)
	// A watch must not hold the drain open until DrainTimeout.
	poll.Until(t, 10*time.Second, "Stop to return with a health watch open", func() bool { return closed(stopped) })
	for {
		resp, err := watch.Recv()
		if err != nil {
			break
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("Watch update during drain = %v, want NOT_SERVING", resp.GetStatus())
		}
	}
}

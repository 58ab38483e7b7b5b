package nodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/node"
)

// The taskwire binary, built once for the tests that run it as separate
// processes, as a deployment does.
var built struct {
	once sync.Once
	path string
	err  error
}

// binary builds the taskwire command into a temporary directory, once
// per test binary, and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "taskwire-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "taskwire")
		out, err := exec.Command("go", "build", "-o", built.path, "github.com/taskwire/taskwire/cmd/taskwire").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Proc is one taskwire process of a test.
type Proc struct {
	Name   string
	Cmd    *exec.Cmd
	Stdout SyncBuffer
	Stderr SyncBuffer
	done   chan struct{}
	err    error // of Wait, once done is closed
}

// StartProc runs taskwire with args in dir, with an environment free of
// TASKWIRE_ settings so that only the flags count. It is killed when the
// test ends, if still running.
func StartProc(t *testing.T, dir, name string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, done: make(chan struct{})}
	p.Cmd = exec.Command(binary(t), args...)
	p.Cmd.Dir, p.Cmd.Env = dir, cleanEnv()
	p.Cmd.Stdout, p.Cmd.Stderr = &p.Stdout, &p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, p.Stderr.String())
		}
	})
	return p
}

// RunProc runs taskwire to its end and returns its stdout, failing the
// test when it fails.
func RunProc(t *testing.T, dir string, args ...string) string {
	t.Helper()
	p := StartProc(t, dir, args[0], args...)
	if err := p.Wait(t, 20*time.Second); err != nil {
		t.Fatalf("taskwire %s: %v\n%s", strings.Join(args, " "), err, p.Stderr.String())
	}
	return p.Stdout.String()
}

// cleanEnv is the environment without TASKWIRE_ settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TASKWIRE_") {
			env = append(env, kv)
		}
	}
	return env
}

// Wait waits for the process to exit and returns its error (nil: exit 0).
func (p *Proc) Wait(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		t.Fatalf("%s still running after %v", p.Name, timeout)
		return nil
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.Name, err)
	}
}

// Logged waits until the process logs a JSON record with msg and returns
// it, failing if the process exits first.
func (p *Proc) Logged(t *testing.T, msg string) map[string]any {
	t.Helper()
	var rec map[string]any
	poll.Until(t, 20*time.Second, p.Name+" to log "+msg, func() bool {
		rec = p.Record(msg)
		select {
		case <-p.done:
			if rec == nil {
				t.Fatalf("%s exited (%v) before logging %q:\n%s", p.Name, p.err, msg, p.Stderr.String())
			}
		default:
		}
		return rec != nil
	})
	return rec
}

// Record returns the first JSON log record with msg, or nil.
func (p *Proc) Record(msg string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(p.Stderr.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == msg {
			return rec
		}
	}
	return nil
}

// SyncBuffer is a bytes.Buffer a process writes while the test reads.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Probe GETs a probe endpoint and returns its status, or 0 when nothing
// answers.
func Probe(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// GRPCHealth asks a worker's gRPC health service about the whole server.
func GRPCHealth(t *testing.T, addr string) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("health check of %s: %v", addr, err)
	}
	return resp.GetStatus()
}

// WriteSecret writes a private secret file of 32 random bytes.
func WriteSecret(t *testing.T, path string) {
	t.Helper()
	if _, err := node.CreateSecretFile(path); err != nil {
		t.Fatal(err)
	}
}

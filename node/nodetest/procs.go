package main

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
)

// The taskwire binary, built once for the tests that run it as separate
// processes, as a deployment does.
var built struct {
	once sync.Once
	path string
	err  error
}

// taskwireBinary builds the command into a temporary directory, once.
func taskwireBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "taskwire-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "taskwire")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// proc is one taskwire process of a test.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
	done   chan struct{}
	err    error // of Wait, once done is closed
}

// startProc runs taskwire with args in dir, with an environment free of
// TASKWIRE_ settings so that only the flags count. It is killed when the
// test ends, if still running.
func startProc(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(taskwireBinary(t), args...)
	p.cmd.Dir, p.cmd.Env = dir, cleanEnv()
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, p.stderr.String())
		}
	})
	return p
}

// runProc runs taskwire to its end and returns its stdout, failing the
// test when it fails.
func runProc(t *testing.T, dir string, args ...string) string {
	t.Helper()
	p := startProc(t, dir, args[0], args...)
	if err := p.wait(t, 20*time.Second); err != nil {
		t.Fatalf("taskwire %s: %v\n%s", strings.Join(args, " "), err, p.stderr.String())
	}
	return p.stdout.String()
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TASKWIRE_") {
			env = append(env, kv)
		}
	}
	return env
}

// wait waits for the process to exit and returns its error (nil: exit 0).
func (p *proc) wait(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		t.Fatalf("%s still running after %v", p.name, timeout)
		return nil
	}
}

func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.name, err)
	}
}

// logged waits until the process logs a JSON record with msg and returns
// it, failing if the process exits first.
func (p *proc) logged(t *testing.T, msg string) map[string]any {
	t.Helper()
	var rec map[string]any
	waitFor(t, 20*time.Second, p.name+" to log "+msg, func() bool {
		rec = p.record(msg)
		select {
		case <-p.done:
			if rec == nil {
				t.Fatalf("%s exited (%v) before logging %q:\n%s", p.name, p.err, msg, p.stderr.String())
			}
		default:
		}
		return rec != nil
	})
	return rec
}

// record returns the first JSON log record with msg, or nil.
func (p *proc) record(msg string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(p.stderr.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == msg {
			return rec
		}
	}
	return nil
}

// syncBuffer is a bytes.Buffer a process writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// probe GETs a probe endpoint and returns its status, or 0 when nothing
// answers.
func probe(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// grpcHealth asks a worker's gRPC health service about the whole server.
func grpcHealth(t *testing.T, addr string) healthpb.HealthCheckResponse_ServingStatus {
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

// writeSecret writes a private secret file of 32 random bytes.
func writeSecret(t *testing.T, path string) {
	t.Helper()
	if _, err := createSecretFile(path); err != nil {
		t.Fatal(err)
	}
}

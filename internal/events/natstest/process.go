package natstest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a nats-server binary of the test's own, with JetStream, on
// a loopback port no other server uses: fault tests kill it and start it
// again on the same port, which an embedded server or a shared one cannot
// stand in for.
type Process struct {
	// URL is the server's client URL; it stays the same across Restart.
	URL string

	t    testing.TB
	bin  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
	out *syncBuffer
}

// StartProcess runs the nats-server binary found on PATH for the test, on
// a free loopback port with its JetStream store in a temporary directory,
// and returns once it takes connections. It skips the test when there is
// no such binary. The server is killed when the test ends.
func StartProcess(t testing.TB) *Process {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("no nats-server on PATH: skipping the test that kills and restarts a NATS server (install nats-server, e.g. apt-get install nats-server)")
	}
	port := freePort(t)
	p := &Process{
		URL: "nats://127.0.0.1:" + strconv.Itoa(port),
		t:   t, bin: bin,
		args: []string{"-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir()},
	}
	t.Cleanup(p.Kill)
	p.start()
	return p
}

// freePort returns a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs the binary and waits until it takes connections.
func (p *Process) start() time.Time {
	p.t.Helper()
	cmd := exec.Command(p.bin, p.args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start nats-server: %v", err)
	}
	p.mu.Lock()
	p.cmd, p.out = cmd, out
	p.mu.Unlock()
	ready, err := p.awaitReady(15 * time.Second)
	if err != nil {
		p.Kill()
		p.t.Fatalf("nats-server on %s: %v\n%s", p.URL, err, out)
	}
	return ready
}

// awaitReady polls until the server greets a new connection with its
// INFO line, and returns when it first did.
func (p *Process) awaitReady(timeout time.Duration) (time.Time, error) {
	addr := strings.TrimPrefix(p.URL, "nats://")
	deadline := time.Now().Add(timeout)
	for {
		if greets(addr) {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("not taking connections after %v", timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// greets reports whether a server at addr sends INFO to a new connection.
func greets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "INFO ")
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it
// to be gone. Killing a server that is not running does nothing.
func (p *Process) Kill() {
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// Restart kills the server if it runs, starts it again on the same port
// and store directory, and returns when it took connections again.
func (p *Process) Restart() time.Time {
	p.t.Helper()
	p.Kill()
	return p.start()
}

// Output is what the server printed since it last started.
func (p *Process) Output() string {
	p.mu.Lock()
	out := p.out
	p.mu.Unlock()
	if out == nil {
		return ""
	}
	return out.String()
}

// syncBuffer is a buffer the server's stdout and stderr share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

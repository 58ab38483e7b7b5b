package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	gobuild "go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/poll"
)

// bin holds the taskwire and taskwire-bridge binaries, built once for the
// whole package: the tests drive the real programs, as a user runs them.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "taskwire-bridge-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	code := build(dir)
	if code == 0 {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles both commands into dir with the go command that runs the
// tests, so nothing but Go is needed.
func build(dir string) int {
	goTool := filepath.Join(gobuild.Default.GOROOT, "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator),
		"github.com/taskwire/taskwire/cmd/taskwire", "github.com/taskwire/taskwire/cmd/taskwire-bridge")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building taskwire and taskwire-bridge:", err)
		return 1
	}
	return 0
}

// server is a `taskwire serve` process with its own data directory.
type server struct {
	endpoint string
	token    string // the owner's, from the first start
	data     string
	cmd      *exec.Cmd
	logs     *syncBuffer // its JSON log records
}

// startServer starts `taskwire serve` on a free loopback port and reads
// the endpoint and the owner's token from its first-start output. Rate
// limits are off: the tests send bursts no person would.
func startServer(t *testing.T) *server {
	t.Helper()
	s := &server{data: t.TempDir(), logs: &syncBuffer{}}
	s.cmd = exec.Command(filepath.Join(bin, "taskwire"), "serve", "--addr", "127.0.0.1:0", "--data", s.data,
		"--rate-token", "0", "--rate-tenant", "0", "--shutdown-grace", "2s")
	s.cmd.Stderr = s.logs
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.kill() })
	out := &syncBuffer{}
	go io.Copy(out, stdout)
	endpointRE := regexp.MustCompile(`serving MCP at (\S+)`)
	tokenRE := regexp.MustCompile(`(?m)^  (ey[\w-]+\.[\w-]+\.[\w-]+)$`)
	poll.Until(t, 30*time.Second, "taskwire serve to print its endpoint and token", func() bool {
		e, tok := endpointRE.FindStringSubmatch(out.String()), tokenRE.FindStringSubmatch(out.String())
		if e == nil || tok == nil {
			return false
		}
		s.endpoint, s.token = e[1], tok[1]
		return true
	})
	return s
}

// kill stops the server at once, as a crash or a lost machine would.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// logged reports whether the server wrote a log record holding every
// key and value of want.
func (s *server) logged(want map[string]string) bool {
	for _, line := range strings.Split(s.logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		match := true
		for k, v := range want {
			match = match && fmt.Sprint(rec[k]) == v
		}
		if match {
			return true
		}
	}
	return false
}

// expiredToken returns the owner's token as it will be once expired: the
// same claims, expired an hour ago, signed with the server's key. Tokens
// get 30 s of leeway, so waiting for a short-lived one would take longer
// than these tests may.
func (s *server) expiredToken(t *testing.T) string {
	t.Helper()
	key, _, err := authn.LoadOrCreateKey(filepath.Join(s.data, "signing.key"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(s.token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Hour)
	claims["iat"], claims["nbf"], claims["exp"] = past.Unix(), past.Unix(), past.Add(time.Hour).Unix()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = key.ID
	signed, err := tok.SignedString(key.Private)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// bridgeCmd is the bridge as a client launches it: configured by the
// environment only. Its standard error is kept in logs.
func bridgeCmd(endpoint, token string, logs *syncBuffer, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "taskwire-bridge"), args...)
	cmd.Env = append(os.Environ(), "TASKWIRE_URL="+endpoint, "TASKWIRE_TOKEN="+token)
	cmd.Stderr = logs
	return cmd
}

// syncBuffer is a bytes.Buffer that a process and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines returns the complete lines written so far.
func (s *syncBuffer) lines() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s.String()))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

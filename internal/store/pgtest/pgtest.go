// Package pgtest runs a PostgreSQL cluster of a test's own, which the
// test may crash and start again: the fault tests need a server they can
// stop without stopping anyone else's. It needs initdb and pg_ctl on PATH
// (or in PostgreSQL's usual directories) and skips the test without them.
// PostgreSQL refuses to run as root, so a test running as root runs the
// cluster as the "postgres" user.
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cluster is a PostgreSQL cluster in a directory of its own, serving on a
// port of 127.0.0.1 that stays the same across Crash and Start.
type Cluster struct {
	dir  string // holds data/ and the log
	port int
	bin  string // the directory of initdb and pg_ctl
	cred *syscall.Credential
	uid  int // owner of dir; -1: the test's own user
	gid  int
}

// searchDirs are where PostgreSQL's programs live when they are not on
// PATH (Debian and Ubuntu keep them out of it).
var searchDirs = []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin"}

// Start creates a cluster with initdb and starts it; it is stopped and
// removed when the test ends. It skips the test when initdb or pg_ctl
// cannot be found, or the test runs as root and there is no "postgres"
// user to run the server as.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{bin: findBin(t), uid: -1, gid: -1}
	c.runAs(t)
	dir, err := os.MkdirTemp("", "taskwire-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() { c.stop(); os.RemoveAll(dir) })
	if c.uid >= 0 {
		if err := os.Chown(dir, c.uid, c.gid); err != nil {
			t.Fatal(err)
		}
	}
	c.port = freePort(t)
	c.run(t, "initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	c.Start(t)
	return c
}

// findBin returns the directory holding initdb and pg_ctl, or skips t.
func findBin(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p)
		}
	}
	for _, pattern := range searchDirs {
		matches, _ := filepath.Glob(filepath.Join(pattern, "pg_ctl"))
		if len(matches) > 0 {
			return filepath.Dir(matches[len(matches)-1])
		}
	}
	t.Skip("pgtest: initdb and pg_ctl not found: install PostgreSQL's server programs (e.g. postgresql-15) to run this test")
	return ""
}

// runAs sets the user the cluster runs as: the test's own, or "postgres"
// when the test runs as root, which PostgreSQL refuses.
func (c *Cluster) runAs(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Skipf("pgtest: running as root, and PostgreSQL refuses root: create a \"postgres\" user to run the test's cluster as (%v)", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	c.uid, c.gid = uid, gid
	c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// freePort returns a port of 127.0.0.1 that nothing listened on just now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// URL is the cluster's postgres database, for the postgres user.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// Port is the port the cluster serves on.
func (c *Cluster) Port() int { return c.port }

// Start starts the stopped cluster on its port and returns once it
// accepts connections.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	opts := strings.Join([]string{
		"-p", strconv.Itoa(c.port), "-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + c.dir, "-c", "max_connections=300",
		// No fsync: a crash of the server (not of the machine) keeps
		// what it wrote in the kernel's cache. Commits still wait for
		// their WAL to be written, so a crash loses none acknowledged.
		"-c", "fsync=off", "-c", "full_page_writes=off",
	}, " ")
	c.run(t, "pg_ctl", "start", "-D", c.data(), "-w", "-t", "60", "-l", filepath.Join(c.dir, "log"), "-o", opts)
}

// Crash stops the cluster at once, as a crash would (pg_ctl stop -m
// immediate): connections are cut, nothing is shut down cleanly, and the
// next Start recovers from the write-ahead log.
func (c *Cluster) Crash(t testing.TB) {
	t.Helper()
	c.run(t, "pg_ctl", "stop", "-D", c.data(), "-m", "immediate", "-w")
}

// Log returns what the server logged so far, for a failing test to show.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	return string(b)
}

// stop stops the cluster if it runs, for cleanup.
func (c *Cluster) stop() {
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err != nil {
		return
	}
	cmd := c.command("pg_ctl", "stop", "-D", c.data(), "-m", "immediate", "-w")
	_ = cmd.Run()
}

// run runs one of PostgreSQL's programs as the cluster's user, failing t
// with its output when it fails.
func (c *Cluster) run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := c.command(name, args...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgtest: %s %s: %v (after %v)\n%s\n%s", name, strings.Join(args, " "), err, time.Since(start), out, c.Log())
	}
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

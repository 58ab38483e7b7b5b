// Package natstest gives tests a NATS server: one embedded in the test
// process on a random loopback port, or the server TASKWIRE_TEST_NATS
// names.
package natstest

import (
	"os"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// EnvNATS names the environment variable holding the URL of a NATS server
// for tests, e.g. nats://127.0.0.1:4222. The server must run JetStream.
const EnvNATS = "TASKWIRE_TEST_NATS"

// Start runs an embedded NATS server with JetStream for the test and
// returns its URL. JetStream keeps its files in the test's temporary
// directory.
func Start(t testing.TB) string {
	t.Helper()
	return start(t, &natsserver.Options{JetStream: true, StoreDir: t.TempDir()})
}

// StartCore runs an embedded NATS server without JetStream, as an
// operator's server started without -js, and returns its URL.
func StartCore(t testing.TB) string {
	t.Helper()
	return start(t, &natsserver.Options{})
}

func start(t testing.TB, opts *natsserver.Options) string {
	t.Helper()
	opts.Host, opts.Port, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, true, true
	ns, err := natsserver.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(func() { // before the store directory is removed
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("embedded NATS server not ready after 10s")
	}
	return ns.ClientURL()
}

// URL returns the server EnvNATS names, or else starts an embedded one.
func URL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(EnvNATS); u != "" {
		return u
	}
	return Start(t)
}

// External returns the server EnvNATS names, skipping the test when the
// variable is not set.
func External(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvNATS)
	if u == "" {
		t.Skip(EnvNATS + " not set: skipping the test against a NATS server outside the test (e.g. " + EnvNATS + "=nats://127.0.0.1:4222)")
	}
	return u
}

// Connect connects to url for the test.
func Connect(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("connect to NATS at %s: %v", url, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

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
// for tests, e.g. nats://127.0.0.1:4222.
const EnvNATS = "TASKWIRE_TEST_NATS"

// Start runs an embedded NATS server for the test and returns its URL.
func Start(t testing.TB) string {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(ns.Shutdown)
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

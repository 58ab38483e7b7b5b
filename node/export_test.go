package node

import (
	"net"
	"net/url"
	"testing"
	"time"
)

// What the external tests of the front door's HTTP limits (limits_test.go,
// package node_test, which starts whole systems through nodetest) read
// and change.

// MaxHeaderBytes is the front door's header limit.
const MaxHeaderBytes = maxHeaderBytes

// CutoffFailsafe bounds how long a test waits for a cut-off.
const CutoffFailsafe = cutoffFailsafe

// ReadHeaderTimeout is the header timeout of the servers started now.
func ReadHeaderTimeout() time.Duration { return httpTimeouts.readHeader }

// ReadTimeout is the whole-request read timeout of the servers started now.
func ReadTimeout() time.Duration { return httpTimeouts.read }

// ShortenTimeouts sets the header and whole-request read timeouts of the
// servers a test starts, restoring them after.
func ShortenTimeouts(t testing.TB, header, read time.Duration) {
	saved := httpTimeouts
	t.Cleanup(func() { httpTimeouts = saved })
	httpTimeouts.readHeader, httpTimeouts.read = header, read
}

// Dial opens a raw TCP connection to the endpoint's host, and returns it
// with the time it opened, which is no later than the server's first read.
// Reads on it fail after cutoffFailsafe.
func Dial(t *testing.T, endpoint string) (net.Conn, time.Time) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetReadDeadline(start.Add(cutoffFailsafe)); err != nil {
		t.Fatal(err)
	}
	return conn, start
}

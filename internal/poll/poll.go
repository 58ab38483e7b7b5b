// Package poll waits in tests for something that happens a moment later
// (a message heard over NATS, a row written by another process, a server
// that has started), by asking again and again instead of sleeping for a
// guessed time: the nats-server habit. It is the one poll helper of the
// module's tests.
package poll

import (
	"testing"
	"time"
)

// interval is how long Until waits between two questions: short enough
// that a test goes on a moment after cond holds, long enough not to spin.
const interval = 5 * time.Millisecond

// Until asks cond until it holds, failing t with what it was waiting for
// once timeout has passed.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(interval)
	}
}

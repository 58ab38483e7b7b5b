package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/node"
)

// TestMaxConnectionAgeFlag: a negative age is refused before anything
// starts; 0 turns the limit off.
func TestMaxConnectionAgeFlag(t *testing.T) {
	args := []string{"worker", "--public-url", "http://127.0.0.1:1", "--signing-key", "root.key", "--nats", "nats://127.0.0.1:1",
		"--internal-key-file", "internal.key", "--db", "sqlite:taskwire.db", "--max-connection-age", "-1s"}
	err := run(context.Background(), args, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--max-connection-age") {
		t.Errorf("worker --max-connection-age -1s = %v, want an error naming the flag", err)
	}
	if opts := node.Keepalive(0, 0); opts != nil {
		t.Errorf("keepalive with no age = %d options, want none", len(opts))
	}
}

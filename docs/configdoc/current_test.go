package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDocIsCurrent: the tables in docs/configuration.md are what the
// generator writes now, so a flag changed without `go generate ./...`
// fails here too, not only in CI. It builds both commands, so -short
// skips it.
func TestDocIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/taskwire and cmd/taskwire-bridge")
	}
	old, err := os.ReadFile(filepath.Join("..", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "configuration.md")
	if err := os.WriteFile(copied, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(copied); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(copied); string(now) != string(old) {
		t.Error("docs/configuration.md's flag tables are stale: run go generate ./... and commit the result")
	}
}
